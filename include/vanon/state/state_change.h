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
#include <string_view>
#include <vector>

namespace vanon::state {

// Stable numbers: they are part of the changelog's record keys.
enum class StateFamily : uint8_t { kEvents = 1, kMeta = 2, kSignatures = 3, kWaiting = 4, kReleases = 5, kWindows = 6 };

struct StateChange {
  StateFamily family = StateFamily::kMeta;
  std::string key;                   // as stored in the column family
  std::optional<std::string> value;  // nullopt: deleted
};

// Keys of two families as the store writes them (key_codec.h), for readers
// of the changelog: a partition's meta record, a release-log entry's key,
// and the release id of a releases-family key (nullopt when it is not one).
std::string MetaRecordKey(int32_t partition, std::string_view name);
std::string ReleaseRecordKey(int32_t partition, int64_t release);
std::optional<int64_t> ReleaseOfKey(std::string_view key);

}  // namespace vanon::state

#endif  // VANON_STATE_STATE_CHANGE_H_
