// The version of what a state store holds, beyond its layout: how its tokens
// were made. Kept as a store-wide meta record ("state_version", decimal).
//   1  no record: written before the record existed.
//   2  trip tokens are domain-separated from vehicle tokens
//      (KeyedHasher::HashTrip); vehicle tokens are unchanged.
// A build reads the versions up to its own and refuses newer ones: an old
// build would mix token schemes in state it does not understand.
#ifndef VANON_SRC_SERVICE_STORE_STATE_VERSION_H_
#define VANON_SRC_SERVICE_STORE_STATE_VERSION_H_

namespace vanon::state {
class StateStore;
}  // namespace vanon::state

namespace vanon::service {

inline constexpr int kStateVersion = 2;

// Brings the store to kStateVersion (synced) and returns the version it
// found. Throws std::runtime_error for a store newer than this build or an
// unreadable record.
int MigrateStateVersion(state::StateStore* store);

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_STORE_STATE_VERSION_H_
