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
// The configuration picks one of three modes (dp_mode.h): counts per
// release (dp_release_counts.cc), counts per DP window of several epochs
// (dp.window_seconds, dp_window_counts.cc), or, with dp.aggregation.topic as
// well, one global count per window over all input partitions
// (dp_global_counts.cc). This class keeps what does not depend on the mode:
// the ledgers' records for the changelog, the metrics and the pause log.
#ifndef VANON_SRC_SERVICE_DP_DP_PUBLISHER_H_
#define VANON_SRC_SERVICE_DP_DP_PUBLISHER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vanon/config.h"
#include "vanon/dp/budget_ledger.h"
#include "vanon/dp/random_source.h"
#include "vanon/ingest/buffered_event.h"

namespace prometheus {
class Registry;
}  // namespace prometheus

namespace vanon::state {
class StateStore;
}  // namespace vanon::state

namespace vanon::service {

class DpPartialSource;
class ShareState;
struct ShareDelta;

class DpPublisher {
 public:
  // Throws std::invalid_argument when dp is enabled but the queries cannot
  // run (a dimension without a fixed domain, a numeric QI split on demand,
  // an epsilon with more than nine decimals...). When config.dp.enabled is
  // false, Compute returns no records and touches no state. Over RocksDB
  // state (dp_publisher_store.cc: the one part of the publisher that names
  // the store).
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
  // parallel). The budget's rolling window follows epoch_start_ms (event
  // time), so a recomputation takes the same decision. Throws
  // std::runtime_error when the ledger cannot be read or written (corrupt or
  // failing state).
  Result Compute(int32_t partition, int64_t epoch, int64_t epoch_start_ms, int64_t epoch_end_ms,
                 std::span<const ingest::BufferedEvent> events, dp::RandomSource& random);
  // The same over the release's events already grouped by vehicle, as the
  // release share's tuples list them: every event of the release in the
  // entry of its vehicle, vehicles in the order of their keys (bytewise),
  // each vehicle's events in any order. Saves grouping them a second time.
  Result Compute(int32_t partition, int64_t epoch, int64_t epoch_start_ms, int64_t epoch_end_ms,
                 std::span<const std::vector<const ingest::BufferedEvent*>> by_vehicle, dp::RandomSource& random);

  // Puts the result's state changes into a share's delta (the runner writes
  // the delta into the release's apply batch).
  void Apply(const Result& r, ShareDelta* d) const;

  // After the apply batch is committed: vanon_dp_* metrics, and one log line
  // when a partition's publication pauses or resumes.
  void Committed(const Result& r);

  // config.dp.enabled: Compute publishes.
  bool enabled() const;

  // For /healthz details: some partition's DP publication is paused.
  bool budget_exhausted() const;

  // Drops what is cached of the partition's ledger: its state was replaced
  // (restored from the state changelog) and is read again at next use.
  void Forget(int32_t partition);

  // Global counts (dp.aggregation.topic): the input topic's partition count
  // (every window waits for that many partials) and where the aggregation
  // partition's share reads the partials from. Call once before Compute;
  // the other modes need neither.
  void SetAggregation(int32_t input_partitions, std::unique_ptr<DpPartialSource> source);
  bool aggregating() const;

  // Where buffered events carry the raw sensitive value (the ingest
  // pipeline's BufferLayout::sensitive), for the `sensitive` dimension.
  // Before the first Compute; -1 (the default): events carry none.
  void SetSensitiveExtra(int index);

 private:
  struct Rep;
  // `state`, or the adapter `owned` when state is null.
  DpPublisher(const config::Config& config, std::string_view hmac_key, std::unique_ptr<ShareState> owned,
              ShareState* state, prometheus::Registry& registry);

  std::unique_ptr<Rep> rep_;
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_DP_DP_PUBLISHER_H_
