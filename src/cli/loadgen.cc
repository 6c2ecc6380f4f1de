#include "loadgen.h"

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "vanon/fleet/fleet_generator.h"
#include "vanon/kafka/producer.h"
#include "vanon/vehicle/vin_decoder.h"

namespace vanon::cli {

std::string DefaultConfigDir() {
  const char* env = std::getenv("VANON_CONFIG_DIR");
  if (env != nullptr && *env != '\0') return env;
  return VANON_SOURCE_CONFIG_DIR;
}

uint64_t RunLoadgen(const LoadgenArgs& args, const std::atomic<bool>& stop, LoadgenProgress* progress) {
  if (args.rate <= 0) throw std::invalid_argument("--rate must be positive");
  fleet::VinDecoder table =
      fleet::VinDecoder::Load(args.vin_table.empty() ? DefaultConfigDir() + "/vehicle/vin-table.yaml" : args.vin_table);
  fleet::FleetOptions o;
  o.vehicles = args.vehicles;
  o.seed = args.seed;
  o.invalid_fraction = args.invalid_fraction;
  o.events_per_second = args.rate;
  o.churn = args.churn;
  o.max_message_bytes = args.max_message_bytes;
  o.start_ms =
      args.start_ms != 0
          ? args.start_ms
          : std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count();
  fleet::FleetGenerator gen(o, table);
  // Throughput settings: the generator can outrun a single broker, so batch.
  kafka::Producer producer(args.bootstrap, {}, {},
                           {{"linger.ms", "20"},
                            {"batch.num.messages", "10000"},
                            {"queue.buffering.max.messages", "500000"},
                            {"message.max.bytes", "4000000"}});
  const auto start = std::chrono::steady_clock::now();
  const uint64_t total = args.duration > 0 ? static_cast<uint64_t>(args.rate * args.duration) : UINT64_MAX;
  uint64_t sent = 0;
  while (sent < total && !stop.load()) {
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    uint64_t due = std::min<uint64_t>(total, static_cast<uint64_t>(elapsed * args.rate) + 1);
    if (sent >= due) {
      producer.Poll();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    while (sent < due) {
      const fleet::FleetMessage& m = gen.Next();
      producer.Produce(args.topic, -1, m.key, m.value);
      ++sent;
      if (progress) {
        progress->produced.fetch_add(1, std::memory_order_relaxed);
        if (m.expected_reject) progress->invalid.fetch_add(1, std::memory_order_relaxed);
      }
    }
    producer.Poll();
  }
  if (!producer.Flush(60000)) throw std::runtime_error("loadgen: flush timed out");
  if (producer.failures() > 0) {
    throw std::runtime_error("loadgen: " + std::to_string(producer.failures()) +
                             " messages failed: " + producer.last_error());
  }
  return producer.delivered();
}

}  // namespace vanon::cli
