// One poll batch in, one atomic RocksDB write out: accepted events (keyed by
// HMAC, with decoded QIs) plus each partition's new offset, counters and
// epoch clock; rejected messages go to the DLQ and late ones (behind the
// partition's watermark) to the late topic or nowhere, per config; both
// producers are flushed and checked before the offsets that skip those
// messages are stored. So a crash anywhere replays, never loses.
#ifndef VANON_SRC_SERVICE_INGEST_INGEST_PIPELINE_H_
#define VANON_SRC_SERVICE_INGEST_INGEST_PIPELINE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "vanon/config.h"
#include "vanon/ingest/buffered_event.h"
#include "vanon/ingest/event_parser.h"
#include "vanon/ingest/qi_pool.h"
#include "vanon/kafka/consumer.h"
#include "vanon/release/epoch_clock.h"
#include "vanon/release/event_buffer.h"
#include "vanon/release/payload_transformer.h"
#include "service/task/partition_task.h"
#include "service/task/prepared_epoch_filter.h"
#include "service/task/task_registry.h"
#include "service/ingest/batch_parser.h"
#include "service/ingest/inline_string.h"
#include "vanon/service/qi_resolver.h"
#include "service/ingest/vin_cache.h"
#include "vanon/state/partition_progress.h"

namespace vanon::kafka {
class Producer;
}  // namespace vanon::kafka

namespace vanon::state {
class StateStore;
}  // namespace vanon::state

namespace vanon::service {

class IngestMetrics;

// DLQ values above this size are cut to their first kDlqTruncatedBytes, with
// a vanon.truncated_from header giving the original size.
inline constexpr size_t kDlqMaxValueBytes = 512 * 1024;
inline constexpr size_t kDlqTruncatedBytes = 64 * 1024;

// Where the optional per-event values sit in BufferedEvent::extras.
struct BufferLayout {
  int sensitive = -1;  // index of the sensitive attribute's raw value, -1 if none
};

class IngestPipeline {
 public:
  // hmac_key must be non-empty. dlq and metrics may be null in tests.
  // tasks: the partitions' tasks, which the pipeline opens when it meets a
  // partition and never closes; null: a registry of its own (tests).
  IngestPipeline(const config::Config& config, std::string_view hmac_key, state::StateStore* store,
                 kafka::Producer* dlq, IngestMetrics* metrics, TaskRegistry* tasks = nullptr);
  ~IngestPipeline();

  // Offset to resume a newly assigned partition from (nullopt: earliest).
  std::optional<int64_t> ResumeOffset(int32_t partition);
  // The partition's task, loaded from state if it has none yet.
  PartitionTask& Open(int32_t partition);
  // A graceful stop or a revoke: stores the partitions' progress and clock
  // as of now, rewound to the resume offset of their buffered events (as a
  // release's apply does), so the next start counts and routes nothing again.
  // No share may be in flight or precomputed (their events are not in the
  // buffer).
  void Checkpoint(const std::vector<int32_t>& partitions);

  // Processes a batch. Throws std::runtime_error if the DLQ cannot confirm
  // delivery; then nothing of the batch is recorded and it will be replayed.
  void Process(const std::vector<kafka::InputMessage>& batch, int64_t now_ms);

  const BufferLayout& layout() const { return layout_; }
  // Sum over the partitions that have a task.
  state::PartitionProgress Totals() const;
  int64_t NextOffset(int32_t partition) const;

  // Parts of the partition's task (Open). Ingestion moves them in memory
  // only; the release loop updates them and stores what its changelog record
  // carries (ReleasedState).
  state::PartitionProgress& Progress(int32_t partition) { return Open(partition).progress(); }
  release::EpochClock& Clock(int32_t partition) { return Open(partition).clock(); }
  release::EventBuffer& Events(int32_t partition) { return Open(partition).events(); }

 private:
  // What ingestion derives from a VIN, cached because a fleet's vehicles send
  // many events each. Memory only (raw VINs never leave the process); bounded.
  // What every event reads comes first, together (VinCache prefetches it).
  struct VehicleInfo {
    ingest::HmacToken key;
    ingest::HmacToken last_trip_key;
    ingest::QiValues qi;         // shared by the vehicle's buffered events
    InlineString<40> last_trip;  // a UUID is 36 characters
    bool known = false;
    std::optional<std::string> sensitive;  // sensitive.aggregator: registry
  };
  VehicleInfo& Lookup(const ingest::ParsedEvent& e);

  // One batch's counts, for the metrics after its commit.
  struct BatchCounts {
    uint64_t rejected = 0, accepted = 0, unknown = 0, late = 0;
    std::map<std::string, uint64_t> rejected_by;
  };
  // The steps of Process() for one message.
  void RouteRejected(const kafka::InputMessage& m, const std::string& reason, const std::string& detail);
  void RouteLate(const kafka::InputMessage& m, int64_t watermark_ms);
  void Buffer(const kafka::InputMessage& m, const VehicleInfo& v, release::EventBuffer* events);
  // Observe()s the event on the partition's clock; its prepared epoch's
  // filter (if any) overrides the answer for that epoch's events.
  release::Arrival Arrive(const PreparedEpochFilter* filter, release::EpochClock* clock, int64_t offset,
                          int64_t now_ms);
  void FlushRouted(const BatchCounts& counts);
  void ReportBatch(const BatchCounts& counts);

  const config::Config& config_;
  state::StateStore* store_;
  kafka::Producer* dlq_;
  IngestMetrics* metrics_;
  BufferLayout layout_;
  bool registry_sensitive_ = false;  // layout_.sensitive is filled from the registry
  std::unique_ptr<QiResolver> resolver_;
  std::unique_ptr<BatchParser> parser_;
  std::unique_ptr<ingest::KeyedHasher> hasher_;
  // Payloads are coarsened by the parser, before they reach state: dropped
  // fields never touch the disk, and a release only copies them.
  release::PayloadStats payload_reported_;   // what metrics_ has been told so far
  std::unique_ptr<TaskRegistry> own_tasks_;  // without a registry from the caller
  TaskRegistry* tasks_;
  // This batch's events, for their partitions' buffers once routed.
  std::vector<std::pair<release::EventBuffer*, release::KeyedEvent>> stored_;
  VinCache<VehicleInfo> vehicles_;
  ingest::QiPool qi_pool_;                 // the vehicles' QI lists, shared by equal ones
  ingest::ParsedEvent* parsed_ = nullptr;  // the message Process() is at
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_INGEST_INGEST_PIPELINE_H_
