// The value windows one release share reads and advances: per vehicle, the
// last epochs' events per sensitive value, its last value and a short event
// history (engine::ValueWindow), kept in state under the vehicle's HMAC.
//
// They give the windowed aggregator (`sensitive.window_epochs`: the mode
// over the last N epochs, ties keeping the previous value), the `carry`
// missing-value policy, and the histories the engine reads to choose a new
// vehicle's signature (privacy.history_slots, learn_events,
// shared_signatures). A share advances the window of every vehicle active
// in its epoch exactly once, from the window stored before it, so every
// computation of the same share gives the same values; the advanced windows
// go into the share's delta (and with it the state changelog).
#ifndef VANON_SRC_SERVICE_SHARE_SHARE_WINDOWS_H_
#define VANON_SRC_SERVICE_SHARE_SHARE_WINDOWS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "service/store/share_state.h"
#include "vanon/config.h"
#include "vanon/engine/release.h"
#include "vanon/engine/value_window.h"
#include "vanon/release/sensitive_dictionary.h"

namespace vanon::service {

// Whether the config needs value windows in state: a window of more than
// one epoch, `carry`, or history-aware signatures. Without them a share
// reads and writes none (the value is the epoch's aggregate).
bool KeepsValueWindows(const config::Config& config);

class ShareWindows {
 public:
  // `dictionary` interns the missing value when a vehicle needs it.
  ShareWindows(const config::Config& config, release::SensitiveDictionary* dictionary, int64_t epoch);

  // Reads the stored windows of `vehicles` (those of the epoch and the
  // waiting ones); a vehicle without one starts empty.
  void Load(const ShareState& state, int32_t partition, const std::vector<std::string>& vehicles);

  // The vehicle's value this epoch (TupleBuilder::ValueChooser): advances
  // its window by the epoch's counts. Once per vehicle and share.
  std::optional<engine::SensitiveId> Advance(std::string_view vehicle, const std::vector<engine::ValueCount>& counts);

  // The histories of the input's vehicles that have no stored signature
  // (the only ones the engine reads them for), when the engine uses them.
  void AddHistories(engine::ReleaseInput* in) const;

  // The advanced windows.
  void WriteChanges(ShareDelta* delta) const;

 private:
  engine::WindowParams params_;
  std::optional<std::string> missing_value_;
  bool histories_;
  release::SensitiveDictionary* dictionary_;
  uint64_t epoch_;
  std::map<std::string, engine::ValueWindow, std::less<>> windows_;
  std::set<std::string, std::less<>> advanced_;
};

// Deletes the windows of vehicles not active since before `oldest`
// (the retention purge, with the signatures').
void PurgeWindows(const ShareState& state, int32_t partition, int64_t oldest, ShareDelta* delta);

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_SHARE_SHARE_WINDOWS_H_
