#include "vanon/service/ingest_pipeline.h"

#include <stdexcept>

#include "vanon/ingest/reject_reason.h"
#include "vanon/kafka/producer.h"
#include "vanon/service/ingest_metrics.h"
#include "vanon/state/state_store.h"

namespace vanon {

namespace {
FieldMapping MappingFrom(const Config& c) {
  FieldMapping m;
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

ValidationLimits LimitsFrom(const Config& c) {
  ValidationLimits l;
  l.max_message_bytes = static_cast<size_t>(c.input.max_message_bytes);
  l.max_depth = static_cast<size_t>(c.input.max_depth);
  l.min_timestamp_ms = c.input.timestamp.min_ms;
  l.max_future_ms = c.input.timestamp.max_future_seconds * 1000;
  return l;
}
// 2^18 vehicles of cache: about 40 MB; beyond it the cache starts over.
constexpr size_t kMaxCachedVehicles = 1u << 18;
}  // namespace

IngestPipeline::IngestPipeline(const Config& config, std::string_view hmac_key, StateStore* store,
                               Producer* dlq, IngestMetrics* metrics)
    : config_(config), store_(store), dlq_(dlq), metrics_(metrics) {
  FieldMapping mapping = MappingFrom(config);
  if (config.sensitive && !config.sensitive->field.empty()) {
    layout_.sensitive = static_cast<int>(mapping.extras.size());
    mapping.extras.push_back(config.sensitive->field);
  }
  resolver_ = QiResolver::Create(config, &mapping.extras);
  parser_ = std::make_unique<EventParser>(std::move(mapping), LimitsFrom(config));
  hasher_ = std::make_unique<KeyedHasher>(hmac_key);
}

IngestPipeline::~IngestPipeline() = default;

IngestPipeline::VehicleInfo& IngestPipeline::Lookup(const ParsedEvent& e) {
  auto it = vehicles_.find(e.vin);
  bool fresh = it == vehicles_.end();
  if (fresh) {
    if (vehicles_.size() >= kMaxCachedVehicles) vehicles_.clear();
    it = vehicles_.emplace(e.vin, VehicleInfo{}).first;
    it->second.key = hasher_->Hash(e.vin);
  }
  VehicleInfo& v = it->second;
  // Event-field QIs can differ per event; table and registry QIs cannot.
  if (fresh || !resolver_->DependsOnVinOnly()) v.known = resolver_->Resolve(e, &v.qi);
  return v;
}

PartitionProgress& IngestPipeline::Progress(int32_t partition) {
  auto it = progress_.find(partition);
  if (it == progress_.end()) it = progress_.emplace(partition, store_->LoadProgress(partition)).first;
  return it->second;
}

std::optional<int64_t> IngestPipeline::ResumeOffset(int32_t partition) {
  int64_t next = Progress(partition).next_offset;
  if (next < 0) return std::nullopt;
  return next;
}

void IngestPipeline::ForgetPartitions(const std::vector<int32_t>& partitions) {
  for (int32_t p : partitions) progress_.erase(p);
}

int64_t IngestPipeline::NextOffset(int32_t partition) const {
  auto it = progress_.find(partition);
  return it == progress_.end() ? -1 : it->second.next_offset;
}

PartitionProgress IngestPipeline::Totals() const {
  PartitionProgress t;
  for (const auto& [p, pr] : progress_) {
    t.consumed += pr.consumed;
    t.accepted += pr.accepted;
    t.unknown_vin += pr.unknown_vin;
    for (const auto& [r, n] : pr.rejected) t.rejected[r] += n;
  }
  return t;
}

void IngestPipeline::Process(const std::vector<InputMessage>& batch, int64_t now_ms) {
  if (batch.empty()) return;
  IngestWrite write(*store_);
  // Work on copies: if the DLQ fails, the in-memory progress must not move.
  std::map<int32_t, PartitionProgress> next;
  uint64_t rejected = 0, accepted = 0, unknown = 0;
  std::map<std::string, uint64_t> rejected_by;
  Rejection rejection;
  for (const InputMessage& m : batch) {
    auto it = next.find(m.partition);
    if (it == next.end()) it = next.emplace(m.partition, Progress(m.partition)).first;
    PartitionProgress& pr = it->second;
    if (m.offset < pr.next_offset) continue;  // already accounted for
    pr.next_offset = m.offset + 1;
    pr.consumed++;
    if (!parser_->Parse(m.key, m.value, now_ms, &parsed_, &rejection)) {
      std::string reason(RejectReasonName(rejection.reason));
      pr.rejected[reason]++;
      rejected_by[reason]++;
      rejected++;
      if (dlq_) {
        // The DLQ keeps the original bytes so nothing is lost; it is an
        // input-classified topic. Its key is the HMAC, never the raw key.
        std::string key = m.key.empty() ? std::string() : hasher_->HashHex(m.key);
        KafkaHeaders headers = {{"vanon.reason", reason},
                                {"vanon.detail", rejection.detail},
                                {"vanon.source.topic", config_.kafka.topics.input},
                                {"vanon.source.partition", std::to_string(m.partition)},
                                {"vanon.source.offset", std::to_string(m.offset)}};
        std::string_view value = DlqValue(m.value);
        if (value.size() < m.value.size()) headers.emplace_back("vanon.truncated_from", std::to_string(m.value.size()));
        dlq_->Produce(config_.kafka.topics.dlq, -1, key, value, headers);
      }
      continue;
    }
    VehicleInfo& v = Lookup(parsed_);
    if (!v.known) {
      pr.unknown_vin++;
      unknown++;
    }
    if (v.last_trip != parsed_.trip_id) {
      v.last_trip = parsed_.trip_id;
      v.last_trip_key = hasher_->Hash(parsed_.trip_id);
    }
    buffered_.vehicle_key = v.key;
    buffered_.trip_key = v.last_trip_key;
    buffered_.ts_ms = parsed_.ts_ms;
    buffered_.event = parsed_.event;
    buffered_.qi_values = v.qi;
    buffered_.extras = parsed_.extras;
    buffered_.payload_json = parsed_.payload_json;
    encoded_.clear();
    EncodeBufferedEvent(buffered_, &encoded_);
    write.PutEvent(m.partition, parsed_.ts_ms, m.offset, encoded_);
    pr.accepted++;
    accepted++;
  }
  if (rejected > 0 && dlq_) {
    uint64_t failures_before = dlq_->failures();
    if (!dlq_->Flush(30000) || dlq_->failures() != failures_before) {
      throw std::runtime_error("DLQ delivery failed: " + dlq_->last_error());
    }
  }
  for (const auto& [p, pr] : next) write.SetProgress(p, pr);
  store_->Commit(write);
  for (auto& [p, pr] : next) progress_[p] = pr;
  if (metrics_) {
    metrics_->consumed.Increment(static_cast<double>(accepted + rejected));
    metrics_->accepted.Increment(static_cast<double>(accepted));
    metrics_->unknown_vin.Increment(static_cast<double>(unknown));
    for (const auto& [r, n] : rejected_by) metrics_->Rejected(r).Increment(static_cast<double>(n));
    metrics_->buffered.Increment(static_cast<double>(accepted));
  }
}

}  // namespace vanon
