// Publishes input partitions' shares of releases, exactly once, and moves
// each partition's state past them. Three steps, each durable before the
// next begins:
//   prepare  a release-log entry with a fresh random seed (and the clock that
//            closed the epoch), so every later attempt computes the same
//            records;
//   publish  the records of every share in the batch in one Kafka
//            transaction, each share's summary after its own records;
//   apply    per share, one RocksDB batch: events deleted, signatures and
//            waiting tuples updated, clock closed, counters moved, log entry
//            marked committed.
// After a crash between publish and apply, the entry is still "prepared";
// the runner reads the releases topic (read_committed) from the offset
// stored at prepare time, and republishes only if the summary is not there.
//
// Threads: Precompute(), Submit() and Apply() run on the consuming thread,
// the only one that touches a partition's task (clock, buffer, progress:
// PartitionTask). A share keeps its partition's task from the take of its
// events until it gives them back, so a task closed meanwhile stays valid. Shares
// are computed on one computing thread per hardware thread
// (base::HardwareThreads), and the Kafka transaction runs on the release
// thread, so consumption goes on while a release is computed and published.
// A share is usually computed during the allowed lateness, before its epoch
// closes (Precompute), so that at the close only the prepare and the
// publication remain. Shares queued while a batch is still producing join
// it; those queued once it commits form the next one. A partition has at
// most one share in flight: its next epoch needs the signatures this one
// leaves.
//
// The parts, one per file of this folder: the jobs and the precompute
// (job_registry.h), prepare (share_preparer.h), the computing threads
// (compute_pool.h), the release thread and its transactions
// (transaction_loop.h) with the share's records (share_collector.h), crash
// read-back (release_log_reader.h) and apply (share_applier.h).
#ifndef VANON_SRC_SERVICE_RELEASE_RELEASE_RUNNER_H_
#define VANON_SRC_SERVICE_RELEASE_RELEASE_RUNNER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vanon/config.h"
#include "vanon/engine/metrics.h"
#include "vanon/release/epoch_clock.h"
#include "vanon/release/event_buffer.h"
#include "vanon/state/partition_progress.h"

namespace vanon::kafka {
class TransactionalProducer;
}  // namespace vanon::kafka

namespace vanon::state {
class StateStore;
}  // namespace vanon::state

namespace vanon::seal {
class RecordSealer;
}  // namespace vanon::seal

namespace vanon::service {

class ChangelogWriter;
class DpPublisher;
class ReleaseMetricsExporter;
class TaskRegistry;

struct OutputTopology {
  int32_t input_partitions = 1;
  int32_t anonymized_partitions = 1;
  int32_t releases_partitions = 1;
  int32_t counts_partitions = 1;
};

struct ShareRequest {
  int32_t partition = 0;
  int64_t epoch = 0;  // the partition clock's NextClosable()
};

struct ReleaseOutcome {
  int32_t partition = 0;
  int64_t release = 0;
  engine::ReleaseMetrics metrics;
  uint64_t events_published = 0;
  uint64_t events_suppressed = 0;
  bool republished = false;  // a crash-interrupted attempt was found uncommitted
  bool recovered = false;    // ... or found committed: only the state was applied
  size_t dp_records = 0;     // published on the counts topic with the release
  bool dp_budget_exhausted = false;
  double seconds = 0;  // submitted -> transaction committed
  // Wall clock (ms) when its transaction committed: shares committed in one
  // transaction have the same.
  int64_t commit_wall_ms = 0;
};

class ReleaseRunner {
 public:
  // sensitive_extra: BufferLayout::sensitive of the ingest pipeline.
  // dp (may be null) adds the differentially private counts of each share
  // to its transaction and its state to the apply batch.
  ReleaseRunner(const config::Config& config, int sensitive_extra, state::StateStore* store,
                kafka::TransactionalProducer* producer, ReleaseMetricsExporter* metrics, OutputTopology topology,
                DpPublisher* dp = nullptr);
  // Lets the batch in flight finish (it is prepared in state, so a restart
  // would apply or republish it anyway), then stops the release thread.
  ~ReleaseRunner();
  ReleaseRunner(const ReleaseRunner&) = delete;
  ReleaseRunner& operator=(const ReleaseRunner&) = delete;

  // With privacy.epoch.precompute, starts computing the share of each
  // partition whose event time has passed the end of its oldest open epoch
  // (EpochClock::NextPrecomputable) and has no share taken yet. Nothing is
  // written or published: Submit() uses the result if no event joined the
  // epoch since (EventBuffer::arrivals_behind_take), and otherwise drops it
  // and computes the share again from all its events.
  // Every partition named must have a task in tasks.
  void Precompute(const std::vector<int32_t>& partitions, const TaskRegistry& tasks);

  // Prepares the shares in one state batch and queues them, each with its
  // events taken from the partition's EventBuffer (or with its precomputed
  // result). No share of a partition may be in flight already.
  void Submit(const std::vector<ShareRequest>& shares, const TaskRegistry& tasks);
  bool InFlight(int32_t partition) const;

  // Gives the events of every precomputed, not yet submitted share back to
  // its partition's EventBuffer: before partitions are revoked.
  void DropPrecomputed();
  // Forgets what the runner keeps of revoked partitions (their independent
  // checker's memory of earlier shares): their state may be replaced
  // before they come back. After Apply(wait) and DropPrecomputed().
  void ForgetPartitions(const std::vector<int32_t>& partitions);

  // Applies the shares whose transaction committed, and gives the events
  // they keep back to their EventBuffers. With wait, first waits until no
  // share is in flight. Rethrows an error of the release thread (Kafka or
  // state): the caller stops, and a restart resumes from the release log.
  std::vector<ReleaseOutcome> Apply(bool wait);

  // Steady-clock seconds (std::chrono::steady_clock) at which the batch in
  // flight opened, or 0 when none is: for /healthz, which must notice a
  // release thread that hangs. Readable from any thread.
  int64_t BatchOpenSince() const;

  // Tuples currently waiting, summed over the partitions released so far.
  uint64_t waiting() const;

  // With the state changelog on: every share's state changes and the input
  // offset to resume at go into its transaction (changelog_writer.h).
  // Before the first Submit.
  void SetChangelog(ChangelogWriter* changelog);
  // With global DP counts on: seals the exact partials sent to the
  // aggregation partition. Before the first Submit.
  void SetPartialSealer(seal::RecordSealer* sealer);

 private:
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_RELEASE_RELEASE_RUNNER_H_
