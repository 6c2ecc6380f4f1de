// Differentially private counts inside a release (docs/dp.md).
//
// The release runner calls Compute() for every partition share of a release,
// publishes Result::records (topic vehicle.counts.dp) in the release's Kafka
// transaction, then Apply() into the release's apply batch and Committed()
// after the batch is durable.
//
// Everything Compute() decides is a function of the state and of the
// release's SeedStream, so a recomputation after a crash republishes the
// same values: the budget ledger (per input partition, in the service's
// state) answers kAlreadySpent for a release it charged before, and the
// noise comes from the same seed. Fresh noise for the same release would let
// a consumer average two draws.
//
// With dp.window_seconds set, counts are gathered over DP windows
// of several epochs and published once per window, in the release of its
// last epoch, with one ledger charge per window (src/service/dp_windows.cc).
//
// With dp.aggregation.topic set as well, partitions publish no noisy counts:
// each sends its exact window counts (Result::partials) to that internal
// topic, and the share of the aggregation partition sums them, adds noise
// once per window and publishes one global count per cell
// (src/service/dp_aggregation.cc).
#ifndef VANON_SRC_SERVICE_DP_DP_PUBLISHER_H_
#define VANON_SRC_SERVICE_DP_DP_PUBLISHER_H_

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vanon/config.h"
#include "vanon/dp/budget_ledger.h"
#include "vanon/dp/dp_release.h"
#include "vanon/dp/event.h"
#include "vanon/dp/random_source.h"
#include "service/store/record_names.h"
#include "vanon/ingest/buffered_event.h"

namespace vanon::engine {
class Schema;
}  // namespace vanon::engine

namespace vanon::state {
class StateStore;
}  // namespace vanon::state

namespace vanon::service {

class DpPartialSource;
struct DpAggregateState;
struct DpPartial;
struct GlobalMark;
class ShareState;
struct ShareDelta;

class DpPublisher {
 public:
  // Throws std::invalid_argument when dp is enabled but the queries cannot
  // run (a dimension without a fixed domain, a numeric QI split on demand,
  // an epsilon with more than nine decimals...). When config.dp.enabled is
  // false, Compute returns no records and touches no state. Over RocksDB
  // state (dp_publisher_store.cc: the one part of the class that names the
  // store).
  DpPublisher(const config::Config& config, std::string_view hmac_key, state::StateStore* store,
              prometheus::Registry& registry);
  // The same over the release share's view of state (a fake in tests).
  DpPublisher(const config::Config& config, std::string_view hmac_key, ShareState* state,
              prometheus::Registry& registry);
  ~DpPublisher();
  DpPublisher(const DpPublisher&) = delete;
  DpPublisher& operator=(const DpPublisher&) = delete;

  struct Result {
    int32_t partition = 0;
    std::vector<std::string> records;  // JSON, topic vehicle.counts.dp, in order
    bool budget_exhausted = false;     // no DP records in this release
    std::string exhausted_message;     // the ledger's explanation (no identifiers)
    // (meta name, value) pairs for ReleaseWrite::PutMeta: running-total state.
    std::vector<std::pair<std::string, std::string>> meta;
    // Meta names for ReleaseWrite::DeleteMeta, applied after `meta` (a
    // closed DP window's per-vehicle records; never a name also in `meta`).
    std::vector<std::string> meta_deleted;
    // (key, value) records for the internal topic dp.aggregation.topic,
    // partition 0, in the release's transaction: exact window counts.
    std::vector<std::pair<std::string, std::string>> partials;
    // For Committed(): metrics of this share of the release.
    uint64_t cells_published = 0;
    uint64_t contributions_cut = 0;
    uint64_t global_complete = 0;    // global windows published with every partition
    uint64_t global_incomplete = 0;  // ... after max_wait_windows without some
    bool aggregated = false;         // the aggregation partition's share: it read the partials
    uint64_t partials_dropped = 0;   // late or unreadable partials
    dp::BudgetStatus status;
    // The partition's ledger record (kDpLedgerMeta) as this computation
    // left it in state, for the changelog; nullopt when it did not read the
    // ledger (DP off, or no charge due).
    std::optional<std::string> ledger_record;
  };

  // `random` is the release's SeedStream after WriteRelease drew from it.
  // Safe to call from several threads (shares of one batch are computed in
  // parallel); calls are serialized.
  // The budget's rolling window follows epoch_start_ms (event time), so a
  // recomputation takes the same decision. Throws std::runtime_error when
  // the ledger cannot be read or written (corrupt or failing state).
  Result Compute(int32_t partition, int64_t epoch, int64_t epoch_start_ms, int64_t epoch_end_ms,
                 std::span<const ingest::BufferedEvent> events, dp::RandomSource& random);

  // Puts the running-total state into a share's delta (the runner writes
  // the delta into the release's apply batch).
  void Apply(const Result& r, ShareDelta* d) const;

  // After the apply batch is committed: vanon_dp_* metrics, and one log line
  // when a partition's publication pauses or resumes.
  void Committed(const Result& r);

  // For /healthz details: some partition's DP publication is paused.
  bool budget_exhausted() const;

  // Drops what is cached of the partition's ledger: its state was replaced
  // (restored from the state changelog) and is read again at next use.
  void Forget(int32_t partition);

  // Global counts (dp.aggregation.topic): the input topic's partition count
  // (every window waits for that many partials) and where the aggregation
  // partition's share reads the partials from. Call once before Compute.
  void SetAggregation(int32_t input_partitions, std::unique_ptr<DpPartialSource> source);
  bool aggregating() const { return !aggregation_.topic.empty(); }
  // Where buffered events carry the raw sensitive value (the ingest
  // pipeline's BufferLayout::sensitive), for the `sensitive` dimension.
  // Before the first Compute; -1 (the default): events carry none.
  void SetSensitiveExtra(int index) { sensitive_extra_ = index; }

  bool enabled() const { return enabled_; }
  const dp::DpPlan& plan() const { return plan_; }

  // Ledger ids of running-total counter starts, kept apart from release ids.
  static constexpr uint64_t kTreeLedgerBit = uint64_t{1} << 63;
  // Meta record: the ledger id of the charge the running totals publish on.
  static constexpr const char* kTreeChargeMeta = kDpTreeChargeMeta;  // record_names.h

 private:
  // `state`, or the adapter `owned` when state is null.
  DpPublisher(const config::Config& config, std::string_view hmac_key, std::unique_ptr<ShareState> owned,
              ShareState* state, prometheus::Registry& registry);
  struct PartitionBudget;
  struct TreeQuery;
  struct QiLookup {
    std::string name;
    size_t attr = 0;                 // index in config.quasi_identifiers and BufferedEvent::qi_values
    config::QuasiIdentifier config;  // its range and precision, for numeric values
  };
  dp::BudgetLedger& Ledger(int32_t partition);
  void SetUpTreeCounters();
  void RunningTotals(int32_t partition, int64_t epoch, int64_t epoch_start_ms, const dp::DpRelease& release,
                     dp::RandomSource& random, Result* result);
  // Each vehicle's events of `events`, converted (dp_publisher.cc).
  using VehicleFn = std::function<void(std::string_view vehicle, std::span<const dp::DpEvent> events)>;
  void ForEachVehicle(std::span<const ingest::BufferedEvent> events, const VehicleFn& fn);
  // DP windows (dp_windows.cc).
  struct Window;
  Result ComputeCounts(int32_t partition, int64_t epoch, int64_t epoch_start_ms, int64_t epoch_end_ms,
                       std::span<const ingest::BufferedEvent> events, dp::RandomSource& random);
  Result ComputeWindow(int32_t partition, int64_t epoch, int64_t epoch_start_ms, int64_t epoch_end_ms,
                       std::span<const ingest::BufferedEvent> events, dp::RandomSource& random);
  void PublishWindow(int32_t partition, Window& window, dp::RandomSource& random, Result* result);
  std::optional<Window> LoadWindow(int32_t partition) const;
  Window FreshWindow(int64_t index) const;
  // Before the vehicle's events of this epoch are added: its records from
  // earlier epochs of the window.
  void LoadVehicle(int32_t partition, std::string_view vehicle, Window* window) const;
  void SaveWindow(const Window& window, Result* result) const;
  // Deletes the closed window's per-vehicle records.
  void DropWindowKeys(int32_t partition, const Window& window, Result* result) const;
  void CloseWindow(int32_t partition, Window& window, dp::RandomSource& random, Result* result);
  // Running totals of a window's published counts: meta `prefix`<query>.
  void CumulativeSums(int32_t partition, const std::string& prefix, const dp::DpRelease& release,
                      const dp::DpReleaseResult& out, const std::string& suffix, Result* result);
  // Global counts (dp_aggregation.cc).
  void EmitPartial(int32_t partition, const Window& window, Result* result);
  void AggregateWindows(int32_t partition, int64_t epoch, int64_t current_window, dp::RandomSource& random,
                        Result* result);
  // Reads the partials of this release into `agg` (the read end fixed per release).
  void ReadPartials(int32_t partition, int64_t epoch, Result* result, DpAggregateState* agg);
  std::optional<int64_t> NextGlobalWindow(const DpAggregateState& agg, int64_t current_window, bool stored_only) const;
  DpPartial ZeroPartial(int64_t window) const;
  // A window some aggregator published (read from the partial topic): if
  // `agg` does not know it, continue after it, with its charge.
  void AdoptMark(int32_t partition, const GlobalMark& mark, DpAggregateState* agg);
  // Publishes window `window` of `agg` (its sum and sources) with noise from `random`.
  void PublishGlobal(int32_t partition, int64_t window, DpAggregateState* agg, dp::RandomSource& random,
                     Result* result);

  const bool enabled_;
  std::unique_ptr<ShareState> owned_state_;  // over the StateStore given, if one was
  ShareState* store_;
  dp::DpPlan plan_;
  dp::BudgetPolicy policy_;
  int64_t epoch_ms_ = 0;
  int64_t window_ms_ = 0;  // 0: counts per release
  config::DpConfig::Aggregation aggregation_;
  int32_t input_partitions_ = 0;
  std::unique_ptr<DpPartialSource> partial_source_;
  std::unique_ptr<engine::Schema> schema_;
  std::vector<QiLookup> qi_attrs_;  // QIs the queries use (dimension or filter)
  int sensitive_extra_ = -1;
  bool counts_sensitive_ = false;  // some query has the sensitive dimension
  std::vector<TreeQuery> trees_;
  int tree_levels_ = 0;
  std::mutex compute_mu_;  // Compute() and everything it touches
  std::map<int32_t, std::unique_ptr<PartitionBudget>> budgets_;
  std::map<int32_t, bool> exhausted_;  // last committed state per partition
  std::map<int32_t, dp::BudgetStatus> statuses_;

  prometheus::Gauge& budget_gauge_;
  prometheus::Gauge& spent_gauge_;
  prometheus::Gauge& remaining_gauge_;
  prometheus::Gauge& exhausted_gauge_;
  prometheus::Counter& cells_counter_;
  prometheus::Counter& cut_counter_;
  prometheus::Counter& global_complete_counter_;
  prometheus::Counter& global_incomplete_counter_;
  prometheus::Counter& partials_dropped_counter_;
  // Wall time this instance last published a global window (or first ran
  // the aggregation); 0 where it never did (VanonDpGlobalCountsStalled).
  prometheus::Gauge& global_last_published_;
  prometheus::Gauge& global_max_wait_;  // 0 without dp.aggregation
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_DP_DP_PUBLISHER_H_
