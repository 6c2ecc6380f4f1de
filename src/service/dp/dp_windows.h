// A partition's open DP window (docs/dp.md "DP windows"), shared by the two
// window modes: with dp.window_seconds set, the DP counts of a partition are
// gathered over a window of several release epochs, aligned in event time,
// and the window closes in the release of its last epoch (or, when that
// epoch never came, the first release after it).
//
// Crash rules as for per-release counts: the open window's state is meta
// records replaced only by the apply batch, so a recomputed release finds
// the window as its first computation did.
#ifndef VANON_SRC_SERVICE_DP_DP_WINDOWS_H_
#define VANON_SRC_SERVICE_DP_DP_WINDOWS_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "service/dp/dp_mode.h"
#include "vanon/dp/count_record.h"
#include "vanon/dp/value_ids.h"
#include "vanon/dp/window_counter.h"

namespace vanon::service {

// The open window's state, written per release only for what the release
// changed:
//   dp_window             "w2 <index> <key records>" then one totals line per
//                         counter (plan order);
//   dp_wv/<index>/<hex>   one vehicle's kept cells, one line per counter,
//                         written only in releases whose epoch has it;
//   dp_wk/<index>/<n>     the vehicles first written by the n-th release
//                         that wrote any (hex, space separated): what to
//                         delete at close, since the store and the changelog
//                         have no range delete of meta keys.
// A `dp_window` of the earlier format ("<index>" then whole counters) is read
// and written out in this one, every vehicle as new.
struct DpWindow {
  int64_t index = 0;
  std::vector<dp::WindowCounter> counters;  // plan order: counts, then numerator, denominator per ratio
  int64_t key_records = 0;                  // dp_wk/<index>/0 .. key_records - 1 exist
  std::vector<std::string> touched;         // vehicles of this release (records to write)
  std::set<std::string> fresh;              // ... of which without a record so far
  // What the counters are bound to: each event's fields are resolved once
  // for all of them (as DpRelease does).
  std::shared_ptr<dp::ValueIds> values;
};

class WindowGatherer {
 public:
  // `core` must outlive this object.
  explicit WindowGatherer(const DpCore* core) : core_(*core) {}

  int64_t IndexOf(int64_t epoch_start_ms) const;

  // What becomes of a closed window's counts (published, or sent to the
  // aggregation partition); its per-vehicle records are deleted after.
  using CloseFn = std::function<void(DpWindow& window, DpPublisher::Result* result)>;

  // Adds a release's events to the partition's open window. A window the
  // epoch is past (its last epoch had no release) is closed first; the
  // epoch's own window is closed when the epoch ends it, else its changes go
  // to `result`. True when the epoch's own window closed. Call with
  // DpCore::mu held.
  bool Add(int32_t partition, int64_t epoch_start_ms, int64_t epoch_end_ms, EventsByVehicle events,
           const CloseFn& close, DpPublisher::Result* result) const;

 private:
  DpWindow Fresh(int64_t index) const;
  std::optional<DpWindow> Load(int32_t partition) const;
  // Before the vehicle's events of this epoch are added: its records from
  // earlier epochs of the window.
  void LoadVehicle(int32_t partition, std::string_view vehicle, DpWindow* window) const;
  void Save(const DpWindow& window, DpPublisher::Result* result) const;
  // Deletes the closed window's per-vehicle records.
  void DropKeys(int32_t partition, const DpWindow& window, DpPublisher::Result* result) const;

  const DpCore& core_;
};

// Running totals: per count query without a time bucket, the sum of its
// published window counts so far, kept in meta `prefix`<query> of
// `partition`, published as records with `tail` appended. Post-processing,
// no further epsilon (the tree mechanism's stream sensitivity would be the
// horizon times the window's; docs/dp.md measures both).
void CumulativeSums(const DpCore& core, int32_t partition, const std::string& prefix, const dp::DpRelease& release,
                    const dp::DpReleaseResult& out, const std::string& tail, DpPublisher::Result* result);

// A window record's JSON with the window and `tail` (",\"partition\":3", or
// the global count's scope and completeness fields) appended.
std::string DpWindowJson(const dp::DpCountRecord& r, int64_t start_ms, int64_t end_ms, const std::string& tail);

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_DP_DP_WINDOWS_H_
