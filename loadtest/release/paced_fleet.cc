#include "paced_fleet.h"

#include <pthread.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "vanon/fleet/fleet_generator.h"
#include "vanon/kafka/producer.h"
#include "vanon/vehicle/vin_decoder.h"

namespace vanon::loadtest {

namespace {
int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}
}  // namespace

void PacedFleet::Run() {
  pthread_setname_np(pthread_self(), "fleet");
  fleet::VinDecoder table = fleet::VinDecoder::Load(options_.vin_table);
  fleet::FleetOptions fo;
  fo.vehicles = options_.vehicles;
  fo.seed = options_.seed;
  fo.events_per_second = options_.rate;
  fo.start_ms = WallMs();
  fleet::FleetGenerator gen(fo, table);
  // The same batching as `vanon loadgen`: one broker cannot take single sends
  // at this rate.
  kafka::Producer producer(options_.bootstrap, {}, {},
                           {{"linger.ms", "20"},
                            {"batch.num.messages", "10000"},
                            {"queue.buffering.max.messages", "500000"},
                            {"message.max.bytes", "4000000"},
                            {"log_level", "3"}});  // no disconnect notice when the cluster goes first
  const uint64_t limit = options_.max_messages > 0 ? options_.max_messages : UINT64_MAX;
  uint64_t sent = 0;
  while (sent < limit && !stop_.load()) {
    // Everything whose event time has come is sent now, in one burst; the
    // burst is at most a millisecond's worth when the producer keeps up.
    const int64_t now = WallMs();
    while (sent < limit) {
      const fleet::FleetMessage& m = gen.Next();
      producer.Produce(options_.topic, -1, m.key, m.value);
      ++sent;
      if (now - m.ts_ms > max_lag_ms_.load(std::memory_order_relaxed)) {
        max_lag_ms_.store(now - m.ts_ms, std::memory_order_relaxed);
      }
      if (m.ts_ms >= now) break;  // the next one is in the future
      if ((sent & 1023) == 0) produced_.store(sent, std::memory_order_relaxed);
    }
    produced_.store(sent, std::memory_order_relaxed);
    producer.Poll();
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  if (!producer.Flush(120000)) throw std::runtime_error("paced fleet: flush timed out");
  if (producer.failures() > 0) {
    throw std::runtime_error("paced fleet: " + std::to_string(producer.failures()) +
                             " deliveries failed: " + producer.last_error());
  }
}

}  // namespace vanon::loadtest
