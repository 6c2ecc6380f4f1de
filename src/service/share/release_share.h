// One input partition's share of one release, computed on a computing
// thread of the release runner, before or after the epoch closes.
//
// Everything here is a function of the epoch's events, of the partition's
// release state (which only the apply of its previous share changed) and of
// the release's seed, so every attempt at the same share yields
// byte-identical records: that is what lets a restart republish a release
// whose transaction never committed.
#ifndef VANON_SRC_SERVICE_SHARE_RELEASE_SHARE_H_
#define VANON_SRC_SERVICE_SHARE_RELEASE_SHARE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "vanon/config.h"
#include "vanon/engine/checker.h"
#include "vanon/engine/metrics.h"
#include "vanon/engine/schema.h"
#include "vanon/release/event_buffer.h"
#include "vanon/release/payload_transformer.h"
#include "vanon/release/release_writer.h"
#include "vanon/release/seed_stream.h"
#include "service/dp/dp_publisher.h"
#include "service/store/share_state.h"
#include "service/store/record_names.h"
#include "vanon/state/release_state.h"

namespace vanon::service {

// What every share of a runner needs; owned by the runner.
struct ShareContext {
  const config::Config* config = nullptr;
  const engine::Schema* schema = nullptr;
  int sensitive_extra = -1;                              // BufferLayout::sensitive of the ingest pipeline
  int32_t input_partitions = 1;                          // for the summary's `partitions`
  ShareState* state = nullptr;                           // the partition's state, read only (but the DP ledger)
  DpPublisher* dp = nullptr;                             // may be null
  const release::PayloadTransformer* payload = nullptr;  // the published time bucket
  // Benchmarks and tests: sees each share's engine input and output once
  // the share's own check passed (the utility benchmark runs the sequence
  // checker over them, docs/utility.md). Null in the service.
  std::function<void(const engine::ReleaseInput&, const engine::ReleaseOutput&)> inspect;
};

// The independent check of one partition's sequence of shares
// (engine::ReleaseChecker with the cross-release rules): resumed from the
// partition's stored signatures and waiting tuples at its first share, so
// that a signature that leaves the state by any other way than retention
// (lost, a bad restore, deleted behind the engine's back) is a violation,
// not a new vehicle; then moved only by shares that are applied
// (Accept(ComputedShare::verdict)), never by one that is dropped or
// withheld. One share of a partition at a time.
struct PartitionChecker {
  explicit PartitionChecker(const engine::Schema& schema)
      : checker(schema, engine::ReleaseChecker::Scope::kReleaseVehicles) {}
  engine::ReleaseChecker checker;
  bool resumed = false;
};

struct ComputedShare {
  int32_t partition = 0;
  int64_t epoch = 0;
  bool committed_before = false;  // an earlier attempt committed: publish nothing
  release::ReleaseRecords records;
  DpPublisher::Result dp;
  engine::ReleaseMetrics metrics;
  uint64_t waiting = 0;  // tuples still waiting after this share
  uint64_t published_events = 0;
  uint64_t qi_at_root = 0;  // BuiltTuples::qi_at_root
  uint64_t suppressed_events = 0;
  // ReleaseChecker's findings on the engine's output; when there are any the
  // share holds no records and no state changes, only its events (spent),
  // and must not be published.
  std::vector<std::string> violations;
  engine::ReleaseChecker::Verdict verdict;  // for PartitionChecker, once the share is applied
  std::vector<int64_t> published_ts;        // event times of the published events
  // The share's state changes: buffered events deleted, signatures, waiting
  // tuples, dictionary, DP state. The runner writes them into the share's
  // apply batch, with the release-log entry, the closed clock and the
  // progress counters, which the consuming thread owns, and keeps only
  // its signature and waiting operations (ReleaseStateOps) here, for the
  // partition task's memory of them at apply.
  ShareDelta delta;
  // The events `apply` keeps in state (those of tuples still waiting), for
  // the partition's EventBuffer once it is committed.
  std::vector<release::KeyedEvent> remaining;
  // The consumed events, freed on the consuming thread that allocated them:
  // a million cross-thread frees per epoch contend for malloc's arena lock
  // with ingestion and halved its rate.
  std::unique_ptr<release::EpochEvents> spent;
  // Per event of `spent`: false where it was moved into `remaining`. With
  // both, a share computed ahead of its close and then dropped gives all its
  // events back (ReturnEvents).
  std::vector<bool> current_consumed, old_consumed;
};

// Moves every event a share was computed from into `buffer`.
void ReturnEvents(ComputedShare* share, release::EventBuffer* buffer);

// `events` are the partition's buffered events up to the epoch's end, as
// EventBuffer::Take gives them (the same set as a scan of state). Safe to
// run for different partitions at once.
// `seed` is the release seed that prepare stores (or stored) for the share.
// `checker` is the partition's (resumed here at its first share).
ComputedShare ComputeShare(const ShareContext& ctx, int32_t partition, int64_t epoch, const release::ReleaseSeed& seed,
                           bool committed_before, release::TakenEvents events, PartitionChecker* checker);

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_SHARE_RELEASE_SHARE_H_
