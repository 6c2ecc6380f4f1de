// Publishes one input partition's share of a release, exactly once, and
// moves the partition's state past it. Three steps, each durable before the
// next begins:
//   prepare  a release-log entry with a fresh random seed (and the clock that
//            closed the epoch), so every later attempt computes the same
//            records;
//   publish  all records in one Kafka transaction, summary last;
//   apply    in one RocksDB batch: events deleted, signatures and waiting
//            tuples updated, clock closed, counters moved, log entry marked
//            committed.
// After a crash between publish and apply, the entry is still "prepared";
// the runner reads the releases topic (read_committed) from the offset
// stored at prepare time, and republishes only if the summary is not there.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "vanon/config.h"
#include "vanon/engine/metrics.h"
#include "vanon/engine/schema.h"
#include "vanon/release/epoch_clock.h"
#include "vanon/state/partition_progress.h"

namespace vanon {

class DpPublisher;
class ReleaseMetricsExporter;
class StateStore;
class TransactionalProducer;

struct OutputTopology {
  int32_t input_partitions = 1;
  int32_t anonymized_partitions = 1;
  int32_t releases_partitions = 1;
  int32_t counts_partitions = 1;
};

struct ReleaseOutcome {
  int32_t partition = 0;
  int64_t release = 0;
  ReleaseMetrics metrics;
  uint64_t events_published = 0;
  uint64_t events_suppressed = 0;
  bool republished = false;  // a crash-interrupted attempt was found uncommitted
  bool recovered = false;    // ... or found committed: only the state was applied
  size_t dp_records = 0;     // published on the counts topic with the release
  bool dp_budget_exhausted = false;
  double seconds = 0;
};

class ReleaseRunner {
 public:
  // sensitive_extra: BufferLayout::sensitive of the ingest pipeline.
  // dp (may be null) adds the differentially private counts of each release
  // to its transaction and its state to the apply batch.
  ReleaseRunner(const Config& config, int sensitive_extra, StateStore* store,
                TransactionalProducer* producer, ReleaseMetricsExporter* metrics,
                OutputTopology topology, DpPublisher* dp = nullptr);
  ~ReleaseRunner();
  ReleaseRunner(const ReleaseRunner&) = delete;
  ReleaseRunner& operator=(const ReleaseRunner&) = delete;

  // Releases `epoch`, which must be clock->NextClosable(). Updates *clock
  // and *progress in memory and in state. Throws on Kafka or state errors
  // (the caller stops; a restart resumes from the release log).
  ReleaseOutcome Run(int32_t partition, int64_t epoch, EpochClock* clock, PartitionProgress* progress);

  // Sum of the tuples currently waiting over the partitions released so far.
  uint64_t waiting() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Meta record holding a partition's SensitiveDictionary.
inline constexpr const char* kDictionaryMeta = "dictionary";

}  // namespace vanon
