// `vanon loadgen`: the synthetic fleet, produced to Kafka at a steady rate.
// Event time follows wall time (start = now, one message every 1/rate s), so
// the service sees a live stream whose epochs close as they would in a car park.
#ifndef VANON_SRC_CLI_LOADGEN_H_
#define VANON_SRC_CLI_LOADGEN_H_

#include <atomic>
#include <cstdint>
#include <string>

namespace vanon::cli {

struct LoadgenArgs {
  std::string bootstrap;
  std::string topic = "vehicle.events.raw";
  uint64_t vehicles = 1000;
  double rate = 1000;    // messages per second
  double duration = 10;  // seconds; 0 = until stopped
  uint64_t seed = 1;
  double invalid_fraction = 0;
  double churn = 0;
  size_t max_message_bytes = 1u << 20;  // too_large messages exceed this
  std::string vin_table;                // VIN decoding table the VINs are drawn from
  int64_t start_ms = 0;                 // 0 = wall clock at start
};

struct LoadgenProgress {
  std::atomic<uint64_t> produced{0};
  std::atomic<uint64_t> invalid{0};
};

// Blocks until duration elapsed or stop; flushes before returning. Throws on
// Kafka errors. Returns the number of messages delivered.
uint64_t RunLoadgen(const LoadgenArgs& args, const std::atomic<bool>& stop, LoadgenProgress* progress);

// The directory holding config/ (demo.yaml, vehicle/, hierarchies/):
// $VANON_CONFIG_DIR, else the source tree this binary was built from.
std::string DefaultConfigDir();

}  // namespace vanon::cli

#endif  // VANON_SRC_CLI_LOADGEN_H_
