#include "seq_feed.h"

#include <chrono>
#include <stdexcept>

#include "ground_truth.h"
#include "vanon/fleet/fleet_generator.h"
#include "vanon/kafka/producer.h"
#include "vanon/vehicle/vin_decoder.h"

namespace vanon::testing {

void SeqFeed::Produce(const std::string& bootstrap, uint64_t n) {
  fleet::VinDecoder table = fleet::VinDecoder::Load(std::string(VANON_SOURCE_DIR) + "/config/vehicle/vin-table.yaml");
  fleet::FleetOptions fo;
  fo.vehicles = vehicles;
  fo.seed = fleet_seed;
  fo.invalid_fraction = invalid_fraction;
  fo.events_per_second = 1000;
  fo.max_message_bytes = 16384;
  fo.start_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  fleet::FleetGenerator gen(fo, table);
  kafka::Producer producer(bootstrap, {}, {}, {{"message.max.bytes", "4000000"}});
  for (uint64_t i = 0; i < n; ++i) {
    const fleet::FleetMessage& m = gen.Next();
    std::string value = m.value;
    if (!m.expected_reject && e2e::InsertSeq(&value, ++seq)) vin_of_seq[seq] = m.key;
    if (m.key.size() == 17) vins.insert(m.key);
    producer.Produce("vehicle.events.raw", -1, m.key, value);
    ++total;
  }
  if (!producer.Flush(60000) || producer.failures() != 0) throw std::runtime_error("feed: delivery failed");
}

}  // namespace vanon::testing
