// The synthetic fleet produced at a fixed rate with event time equal to wall
// time (message i carries ts = start + i/rate and is sent no earlier than
// that), so epochs close in real time, as in a car park. When the machine
// cannot keep up, event time falls behind wall time; max_lag_ms() says by
// how much, because release latency measured from event time would hide it.
#ifndef VANON_LOADTEST_RELEASE_PACED_FLEET_H_
#define VANON_LOADTEST_RELEASE_PACED_FLEET_H_

#include <atomic>
#include <cstdint>
#include <string>

namespace vanon::loadtest {

struct PacedFleetOptions {
  std::string bootstrap;
  std::string topic;
  std::string vin_table;
  uint64_t vehicles = 100000;
  double rate = 100000;       // messages per second of wall (and event) time
  uint64_t max_messages = 0;  // 0 = until Stop()
  uint64_t seed = 1;
};

class PacedFleet {
 public:
  explicit PacedFleet(const PacedFleetOptions& options) : options_(options) {}

  // Blocks until Stop() or max_messages, then flushes. Throws on Kafka errors.
  void Run();
  void Stop() { stop_ = true; }

  uint64_t produced() const { return produced_.load(std::memory_order_relaxed); }
  int64_t max_lag_ms() const { return max_lag_ms_.load(std::memory_order_relaxed); }

 private:
  PacedFleetOptions options_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> produced_{0};
  std::atomic<int64_t> max_lag_ms_{0};
};

}  // namespace vanon::loadtest

#endif  // VANON_LOADTEST_RELEASE_PACED_FLEET_H_
