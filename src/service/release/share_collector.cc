#include "service/release/share_collector.h"

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "service/support/fault_injection.h"
#include "vanon/kafka/transactional_producer.h"
#include "vanon/release/record_list.h"
#include "vanon/seal/record_sealer.h"

namespace vanon::service {

void ShareCollector::Produce(const ComputedShare& s, const kafka::KafkaHeaders& headers, bool* mid_produce_point) {
  const config::KafkaTopics& topics = config_.kafka.topics;
  const std::string key = std::to_string(s.epoch) + "/" + std::to_string(s.partition);
  const int32_t anon = AnonymizedPartition(s.partition);
  const release::RecordList& events = s.records.events;
  // One timestamp for the share's records: they were all written before
  // this call, and reading the clock per record was visible in profiles.
  const int64_t ts =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  const size_t half = events.size() / 2;
  for (size_t i = 0; i < half; ++i) producer_->Produce(topics.anonymized, anon, {}, events[i], headers, ts);
  if (*mid_produce_point && half > 0 && FaultInjectionEnabled()) {
    *mid_produce_point = false;
    producer_->Flush(30000);  // so the broker really holds half a transaction
    FaultPoint("release.mid_produce");
  }
  for (size_t i = half; i < events.size(); ++i) producer_->Produce(topics.anonymized, anon, {}, events[i], headers, ts);
  const int32_t counts = CountsPartition(s.partition);
  for (const std::string& d : s.dp.records) producer_->Produce(topics.counts, counts, key, d, headers, ts);
  // Exact DP window counts for the aggregation partition (internal topic).
  for (const auto& [k, v] : s.dp.partials) {
    if (partial_sealer_ == nullptr) throw std::logic_error("release: DP partials without a sealer");
    const std::string& topic = config_.dp.aggregation.topic;
    producer_->Produce(topic, 0, k, partial_sealer_->Seal({topic, 0, k}, v), headers, ts);
  }
  const int32_t rel = ReleasesPartition(s.partition);
  for (const std::string& g : s.records.groups) producer_->Produce(topics.releases, rel, key, g, headers, ts);
  producer_->Produce(topics.releases, rel, key, s.records.summary, headers, ts);
}

}  // namespace vanon::service
