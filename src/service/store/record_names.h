// Names of the per-partition meta records the service keeps in state
// (StateStore::GetMeta / PutMeta) and in the state changelog. One list, so
// that whoever writes a record and whoever reads it back (the apply batch,
// a restart, a restore by a new owner) cannot disagree on its name.
#ifndef VANON_SRC_SERVICE_STORE_RECORD_NAMES_H_
#define VANON_SRC_SERVICE_STORE_RECORD_NAMES_H_

#include <string_view>

namespace vanon::service {

// The partition's EpochClock state (EpochClock::EncodeState), as of its
// last release.
inline constexpr std::string_view kClockMeta = "clock";

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_STORE_RECORD_NAMES_H_
