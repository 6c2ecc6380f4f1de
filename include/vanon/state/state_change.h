// One durable state change as it travels through the state changelog
// (docs/state.md): a column family, the store's own key, and the new value
// or none for a deletion. The store's keys and values hold partitions,
// times, offsets, release ids, HMACs and codes only, never a raw
// identifier, so a change can leave the process as it is.
#ifndef VANON_STATE_STATE_CHANGE_H_
#define VANON_STATE_STATE_CHANGE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vanon::state {

// Stable numbers: they are part of the changelog's record keys.
enum class StateFamily : uint8_t { kEvents = 1, kMeta = 2, kSignatures = 3, kWaiting = 4, kReleases = 5, kWindows = 6 };

struct StateChange {
  StateFamily family = StateFamily::kMeta;
  std::string key;                   // as stored in the column family
  std::optional<std::string> value;  // nullopt: deleted
};

}  // namespace vanon::state

#endif  // VANON_STATE_STATE_CHANGE_H_
