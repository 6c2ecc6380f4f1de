#include "fleet_feed.h"

#include <librdkafka/rdkafkacpp.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "vanon/fleet/fleet_generator.h"
#include "vanon/kafka/producer.h"
#include "service/ingest/ingest_pipeline.h"
#include "vanon/vehicle/vin_decoder.h"

namespace vanon::testing {

int64_t SumLowWatermarks(const std::string& bootstrap, const std::string& topic, int partitions) {
  std::string err;
  std::unique_ptr<RdKafka::Conf> conf(RdKafka::Conf::create(RdKafka::Conf::CONF_GLOBAL));
  conf->set("bootstrap.servers", bootstrap, err);
  std::unique_ptr<RdKafka::Producer> p(RdKafka::Producer::create(conf.get(), err));
  int64_t sum = 0;
  for (int i = 0; i < partitions; ++i) {
    int64_t lo = -1, hi = -1;
    if (p->query_watermark_offsets(topic, i, &lo, &hi, 10000) != RdKafka::ERR_NO_ERROR) {
      throw std::runtime_error("cannot read watermarks of " + topic);
    }
    sum += lo;
  }
  return sum;
}

FeedSummary ProduceFleet(const std::string& bootstrap, const std::string& topic, const FeedOptions& o) {
  fleet::VinDecoder table = fleet::VinDecoder::Load(std::string(VANON_SOURCE_DIR) + "/config/vehicle/vin-table.yaml");
  fleet::FleetOptions fo;
  fo.vehicles = o.vehicles;
  fo.seed = o.seed;
  fo.invalid_fraction = o.invalid_fraction;
  fo.events_per_second = o.rate;
  fo.max_message_bytes = o.max_message_bytes;
  fo.start_ms =
      o.start_ms != 0
          ? o.start_ms
          : std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count();
  fleet::FleetGenerator gen(fo, table);
  kafka::Producer producer(bootstrap, {}, {}, {{"message.max.bytes", "4000000"}});
  FeedSummary s;
  auto start = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < o.messages; ++i) {
    const fleet::FleetMessage& m = gen.Next();
    producer.Produce(topic, o.partition, m.key, m.value);
    s.total++;
    if (m.expected_reject) {
      std::string reason(*m.expected_reject);
      s.invalid++;
      s.invalid_by_reason[reason]++;
      // The service keeps only the head of oversized messages in the DLQ.
      s.rejected_values.emplace(
          m.value.size() <= service::kDlqMaxValueBytes ? m.value : m.value.substr(0, service::kDlqTruncatedBytes),
          reason);
    }
    if (m.key.size() == 17) s.vins.insert(m.key);
    if (o.wall_rate > 0) {
      auto due = start + std::chrono::duration<double>(static_cast<double>(i) / o.wall_rate);
      std::this_thread::sleep_until(due);
      producer.Poll();
    }
  }
  if (!producer.Flush(60000) || producer.failures() != 0) {
    throw std::runtime_error("feed: delivery failed: " + producer.last_error());
  }
  return s;
}

}  // namespace vanon::testing
