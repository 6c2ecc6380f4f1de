#include "service/ingest/ingest_pipeline.h"

#include <algorithm>
#include <stdexcept>

#include "service/store/record_names.h"
#include "service/store/released_state.h"
#include "vanon/ingest/reject_reason.h"
#include "vanon/kafka/producer.h"
#include "service/support/fault_injection.h"
#include "service/ingest/ingest_metrics.h"
#include "vanon/state/state_store.h"

namespace vanon::service {

namespace {
ingest::FieldMapping MappingFrom(const config::Config& c) {
  ingest::FieldMapping m;
  m.vin = c.input.fields.vin;
  m.trip = c.input.fields.trip;
  m.timestamp = c.input.fields.timestamp;
  m.event = c.input.fields.event;
  m.payload = c.input.fields.payload;
  return m;
}

// A message too large for the input is usually too large for the DLQ topic
// as well; its head is kept for diagnosis and the source offset points at
// the whole message, still in the input topic for its retention time.
std::string_view DlqValue(std::string_view v) {
  return v.size() <= kDlqMaxValueBytes ? v : v.substr(0, kDlqTruncatedBytes);
}

ingest::ValidationLimits LimitsFrom(const config::Config& c) {
  ingest::ValidationLimits l;
  l.max_message_bytes = static_cast<size_t>(c.input.max_message_bytes);
  l.max_depth = static_cast<size_t>(c.input.max_depth);
  l.min_timestamp_ms = c.input.timestamp.min_ms;
  l.max_future_ms = c.input.timestamp.max_future_seconds * 1000;
  return l;
}
// The cache grows with the vehicles a pod sees, about 250 bytes each, up to
// 2^21 (about 500 MB); beyond it the cache starts over. At 2^18 a fleet of
// a million vehicles found almost none of its vehicles in it.
constexpr size_t kMaxCachedVehicles = 1u << 21;
// Only a full poll batch (kafka.poll_batch_max messages, 5,000 by default:
// a consumer behind its input) is shared with the parsing worker. A consumer
// keeping up gets smaller batches, and there the worker would cost more CPU
// (the parsed events cross to the other core) than the time it saves; nor is
// a full batch shared below this size.
constexpr size_t kMinSharedBatch = 1024;
}  // namespace

IngestPipeline::IngestPipeline(const config::Config& config, std::string_view hmac_key, state::StateStore* store,
                               kafka::Producer* dlq, IngestMetrics* metrics, TaskRegistry* tasks)
    : config_(config), store_(store), dlq_(dlq), metrics_(metrics), tasks_(tasks), vehicles_(kMaxCachedVehicles) {
  if (!tasks_) {
    own_tasks_ = std::make_unique<TaskRegistry>(store, config.privacy.epoch);
    tasks_ = own_tasks_.get();
  }
  ingest::FieldMapping mapping = MappingFrom(config);
  if (config.sensitive && !config.sensitive->field.empty()) {
    layout_.sensitive = static_cast<int>(mapping.extras.size());
    mapping.extras.push_back(config.sensitive->field);
  }
  resolver_ = QiResolver::Create(config, &mapping.extras);
  // With aggregator: registry the value comes from the registry, per
  // vehicle: it is appended after the extras the parser extracts.
  if (config.sensitive && config.sensitive->aggregator == config::SensitiveAggregator::kRegistry) {
    layout_.sensitive = static_cast<int>(mapping.extras.size());
    registry_sensitive_ = true;
  }
  const ingest::ValidationLimits limits = LimitsFrom(config);
  // Payloads arrive transformed (each parser's own sink).
  parser_ = std::make_unique<BatchParser>(
      [&mapping, &limits] { return std::make_unique<ingest::EventParser>(mapping, limits); }, config.payload,
      std::max<size_t>(kMinSharedBatch, static_cast<size_t>(config.kafka.poll_batch_max)));
  hasher_ = std::make_unique<ingest::KeyedHasher>(hmac_key);
}

IngestPipeline::~IngestPipeline() = default;

IngestPipeline::VehicleInfo& IngestPipeline::Lookup(const ingest::ParsedEvent& e) {
  auto [found, fresh] = vehicles_.FindOrInsert(e.vin);
  VehicleInfo& v = *found;
  if (fresh) v.key = hasher_->Hash(e.vin);
  // Event-field QIs can differ per event; table and registry QIs cannot.
  if (fresh || !resolver_->DependsOnVinOnly()) {
    std::vector<std::string> qi;
    v.known = resolver_->Resolve(e, &qi);
    v.qi = qi_pool_.Get(std::move(qi));
  }
  if (fresh && registry_sensitive_) v.sensitive = resolver_->SensitiveValue(e);
  return v;
}

PartitionTask& IngestPipeline::Open(int32_t partition) { return tasks_->Open(partition, parser_->payload()); }

std::optional<int64_t> IngestPipeline::ResumeOffset(int32_t partition) {
  int64_t next = Progress(partition).next_offset;
  if (next < 0) return std::nullopt;
  return next;
}

// Only the records a release would store (ReplayProgress, the clock): the
// events stay in the input topic, as after a release.
void IngestPipeline::Checkpoint(const std::vector<int32_t>& partitions) {
  state::ReleaseWrite w(*store_);
  for (int32_t p : partitions) {
    const std::shared_ptr<PartitionTask> task = tasks_->Find(p);
    if (!task) continue;
    if (task->progress().next_offset < 0) continue;  // nothing consumed: nothing to store
    const ReleaseBase base = TakeReleaseBase(task->clock(), task->progress(), task->events());
    w.SetProgress(p, ReplayProgress(base));
    w.PutMeta(p, kClockMeta, base.clock.EncodeState());
  }
  store_->Commit(w);
}

int64_t IngestPipeline::NextOffset(int32_t partition) const {
  const std::shared_ptr<PartitionTask> task = tasks_->Find(partition);
  return task ? task->progress().next_offset : -1;
}

state::PartitionProgress IngestPipeline::Totals() const {
  state::PartitionProgress t;
  tasks_->ForEach([&t](const PartitionTask& task) {
    const state::PartitionProgress& pr = task.progress();
    t.consumed += pr.consumed;
    t.accepted += pr.accepted;
    t.unknown_vin += pr.unknown_vin;
    t.late += pr.late;
    t.released += pr.released;
    t.suppressed += pr.suppressed;
    t.releases += pr.releases;
    for (const auto& [r, n] : pr.rejected) t.rejected[r] += n;
  });
  return t;
}

// Per message: already accounted for (skipped), rejected (DLQ), late (late
// topic or dropped) or buffered; counted in the partition's progress. Memory
// only: nothing of a batch is written to state (docs/state.md, "Crash and
// replay"). Once what it routed has arrived, the in-memory copies move.
void IngestPipeline::Process(const std::vector<kafka::InputMessage>& batch, int64_t now_ms) {
  if (batch.empty()) return;
  // Work on copies: if the DLQ fails, the in-memory progress must not move.
  // One entry per partition, found once per message.
  struct BatchPartition {
    state::PartitionProgress progress;
    release::EpochClock clock;
    const PreparedEpochFilter* filter;
    release::EventBuffer* events;
  };
  std::map<int32_t, BatchPartition> parts;
  BatchCounts counts;
  stored_.clear();
  stored_.reserve(batch.size());
  BatchParser::Batch parsing(parser_.get(), batch, now_ms);  // parsed ahead while this thread routes
  for (size_t i = 0; i < batch.size(); ++i) {
    const kafka::InputMessage& m = batch[i];
    // An accepted event's key is its VIN: its vehicle's cache entry is
    // fetched from memory while the messages before it are parsed.
    if (i + 2 < batch.size()) vehicles_.PrefetchSlot(batch[i + 2].key);
    if (i + 1 < batch.size()) vehicles_.PrefetchEntry(batch[i + 1].key);
    auto it = parts.find(m.partition);
    if (it == parts.end()) {
      PartitionTask& task = Open(m.partition);
      it = parts.emplace(m.partition, BatchPartition{task.progress(), task.clock(), task.filter(), &task.events()})
               .first;
    }
    BatchPartition& part = it->second;
    state::PartitionProgress& pr = part.progress;
    if (m.offset < pr.next_offset) continue;  // already accounted for
    // Read again after a restart or a restore (ReleasedState): counted and
    // routed before the last release, only buffered again.
    const bool replay = m.offset < pr.replay_until;
    pr.next_offset = m.offset + 1;
    if (!replay) pr.consumed++;
    BatchParser::Result& parsed = parsing.Get(i);
    parsed_ = &parsed.event;
    if (!parsed.ok) {
      if (replay) continue;
      const ingest::Rejection& rejection = parsed.rejection;
      std::string reason(RejectReasonName(rejection.reason));
      pr.rejected[reason]++;
      counts.rejected_by[reason]++;
      counts.rejected++;
      RouteRejected(m, reason, rejection.detail);
      continue;
    }
    VehicleInfo& v = Lookup(*parsed_);
    if (!replay && !v.known) {
      pr.unknown_vin++;
      counts.unknown++;
    }
    if (!(v.last_trip == parsed_->trip_id)) {
      v.last_trip.assign(parsed_->trip_id);
      v.last_trip_key = hasher_->HashTrip(parsed_->trip_id);
    }
    if (!replay) {
      pr.accepted++;
      counts.accepted++;
    }
    release::EpochClock& clock = part.clock;
    if (Arrive(part.filter, &clock, m.offset, now_ms) == release::Arrival::kLate) {
      if (replay) continue;
      pr.late++;
      counts.late++;
      RouteLate(m, clock.watermark_ms());
      continue;
    }
    Buffer(m, v, part.events);
  }
  parsing.End();  // before ReportBatch reads the worker's parser's counts
  FlushRouted(counts);
  for (auto& [p, part] : parts) {
    Progress(p) = part.progress;
    Clock(p) = part.clock;
  }
  for (auto& [events, e] : stored_) events->Add(std::move(e));
  stored_.clear();
  ReportBatch(counts);
  FaultPoint("ingest.after_batch");
}

release::Arrival IngestPipeline::Arrive(const PreparedEpochFilter* filter, release::EpochClock* clock, int64_t offset,
                                        int64_t now_ms) {
  const release::Arrival by_clock = clock->Observe(parsed_->ts_ms, now_ms);
  return filter ? filter->Classify(*clock, parsed_->ts_ms, offset, by_clock) : by_clock;
}

// The DLQ keeps the original bytes so nothing is lost; it is classified as
// sensitive as the raw input. Its key is the input record's own key, never
// the HMAC: a record pairing an HMAC with the raw message (which holds the
// VIN) would be a VIN -> HMAC table, the one link that makes the changelog's
// and the output's keyed state attributable. With the input's own key, a
// record can be replayed to the input topic into the partition it came from.
void IngestPipeline::RouteRejected(const kafka::InputMessage& m, const std::string& reason, const std::string& detail) {
  if (!dlq_) return;
  const std::string_view key = m.key;
  kafka::KafkaHeaders headers = {{"vanon.reason", reason},
                                 {"vanon.detail", detail},
                                 {"vanon.source.topic", config_.kafka.topics.input},
                                 {"vanon.source.partition", std::to_string(m.partition)},
                                 {"vanon.source.offset", std::to_string(m.offset)}};
  std::string_view value = DlqValue(m.value);
  if (value.size() < m.value.size()) headers.emplace_back("vanon.truncated_from", std::to_string(m.value.size()));
  dlq_->Produce(config_.kafka.topics.dlq, -1, key, value, headers);
}

// Its epoch is released already: it can join no release. Counted, and kept
// whole in the late topic (classified like the raw input, and keyed like it,
// for the reason given at RouteRejected) when the config routes it there.
void IngestPipeline::RouteLate(const kafka::InputMessage& m, int64_t watermark_ms) {
  if (config_.privacy.late_events != config::LateEvents::kTopic || !dlq_) return;
  kafka::KafkaHeaders headers = {{"vanon.reason", "late"},
                                 {"vanon.watermark_ms", std::to_string(watermark_ms)},
                                 {"vanon.source.topic", config_.kafka.topics.input},
                                 {"vanon.source.partition", std::to_string(m.partition)},
                                 {"vanon.source.offset", std::to_string(m.offset)}};
  dlq_->Produce(config_.kafka.topics.late, -1, m.key, m.value, headers);
}

// The parsed event as the buffer keeps it: tokens instead of identifiers,
// the vehicle's QI values, the payload already coarsened.
void IngestPipeline::Buffer(const kafka::InputMessage& m, const VehicleInfo& v, release::EventBuffer* events) {
  // The copy's atomic increment waits for every store before it to drain;
  // made first, it waits for fewer than after the event's own.
  ingest::QiValues qi = v.qi;
  release::KeyedEvent& kept = stored_.emplace_back(events, release::KeyedEvent{parsed_->ts_ms, m.offset, {}}).second;
  ingest::BufferedEvent& b = kept.event;
  b.vehicle_key = v.key;
  b.trip_key = v.last_trip_key;
  b.ts_ms = parsed_->ts_ms;
  b.event = parsed_->event;
  b.qi_values = std::move(qi);
  b.extras = std::move(parsed_->extras);  // the parser fills them anew
  if (registry_sensitive_) b.extras.push_back(v.sensitive);
  b.payload_json = parsed_->payload_json;  // transformed by the parser's sink
}

// Before the batch moves the in-memory state: what was routed must have
// arrived, or the batch is not recorded (and is read again).
void IngestPipeline::FlushRouted(const BatchCounts& counts) {
  const bool routed =
      counts.rejected > 0 || (counts.late > 0 && config_.privacy.late_events == config::LateEvents::kTopic);
  if (!routed || !dlq_) return;
  uint64_t failures_before = dlq_->failures();
  if (!dlq_->Flush(30000) || dlq_->failures() != failures_before) {
    throw std::runtime_error("DLQ or late-topic delivery failed: " + dlq_->last_error());
  }
}

void IngestPipeline::ReportBatch(const BatchCounts& counts) {
  if (!metrics_) return;
  const release::PayloadStats ps = parser_->stats();
  metrics_->payload_malformed_fields.Increment(
      static_cast<double>(ps.malformed_fields - payload_reported_.malformed_fields));
  metrics_->payload_malformed_payloads.Increment(
      static_cast<double>(ps.malformed_payloads - payload_reported_.malformed_payloads));
  payload_reported_ = ps;
  metrics_->consumed.Increment(static_cast<double>(counts.accepted + counts.rejected));
  metrics_->accepted.Increment(static_cast<double>(counts.accepted));
  metrics_->unknown_vin.Increment(static_cast<double>(counts.unknown));
  for (const auto& [r, n] : counts.rejected_by) metrics_->Rejected(r).Increment(static_cast<double>(n));
  metrics_->buffered.Increment(static_cast<double>(counts.accepted - counts.late));
  (config_.privacy.late_events == config::LateEvents::kTopic ? metrics_->late_topic : metrics_->late_drop)
      .Increment(static_cast<double>(counts.late));
}

}  // namespace vanon::service
