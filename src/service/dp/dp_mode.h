// The three ways DpPublisher publishes, one class each behind DpMode, and
// what they share (DpCore). The configuration picks the mode:
//   counts per release, with tree-counter running totals  dp_release_counts.cc
//   dp.window_seconds: counts per DP window of a partition dp_window_counts.cc
//   and dp.aggregation.topic: global counts per window     dp_global_counts.cc
// The two window modes gather a partition's window alike (dp_windows.h) and
// differ in what a closed window becomes: published noisy counts, or exact
// counts sent to the aggregation partition.
#ifndef VANON_SRC_SERVICE_DP_DP_MODE_H_
#define VANON_SRC_SERVICE_DP_DP_MODE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string_view>

#include "service/dp/dp_ledgers.h"
#include "service/dp/dp_partial_source.h"
#include "service/dp/dp_publisher.h"
#include "service/dp/dp_settings.h"
#include "service/dp/dp_vehicles.h"

namespace vanon::service {

// Owned by the publisher, lent to its mode.
struct DpCore {
  // Throws std::invalid_argument as DpSettingsFromConfig does.
  DpCore(const config::Config& config, std::string_view hmac_key, ShareState* state);

  ShareState* const state;
  const DpSettings settings;
  PartitionLedgers ledgers;
  VehicleEvents vehicles;
  // Compute() and everything it touches: the ledgers (a map shared by all
  // partitions) and the modes' state. Counting a share's events and drawing
  // its noise need only the share's data and may run outside it.
  std::mutex mu;
};

class DpMode {
 public:
  virtual ~DpMode() = default;

  // DpPublisher::Compute without Result::ledger_record; called with
  // DpCore::mu not held, takes it for what it touches of shared state.
  virtual DpPublisher::Result Compute(int32_t partition, int64_t epoch, int64_t epoch_start_ms, int64_t epoch_end_ms,
                                      EventsByVehicle events, dp::RandomSource& random) = 0;

  // DpPublisher::SetAggregation: used by global counts only.
  virtual void SetAggregation(int32_t /*input_partitions*/, std::unique_ptr<DpPartialSource> /*source*/) {}
};

// Each throws std::invalid_argument when the configuration cannot run in
// that mode; `core` must outlive the mode.
std::unique_ptr<DpMode> NewReleaseCounts(DpCore* core);
std::unique_ptr<DpMode> NewWindowCounts(DpCore* core);
std::unique_ptr<DpMode> NewGlobalCounts(DpCore* core);

// The mode core->settings ask for.
std::unique_ptr<DpMode> NewDpMode(DpCore* core);

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_DP_DP_MODE_H_
