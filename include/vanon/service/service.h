// The vanon service: consumes raw events, validates and buffers them in
// state, serves metrics and health. Run() returns when `stop` becomes true,
// after finishing the current batch, flushing and closing state cleanly.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "vanon/config.h"

namespace prometheus {
class Registry;
}

namespace vanon {

// A consistent-enough snapshot for the demo's status line.
struct ServiceStatus {
  uint64_t consumed = 0;
  uint64_t accepted = 0;
  uint64_t rejected = 0;
  uint64_t buffered = 0;
  int partitions = 0;
  bool ready = false;
};

class Service {
 public:
  // hmac_key: the secret (already read from the environment); non-empty.
  Service(Config config, std::string hmac_key);
  ~Service();
  Service(const Service&) = delete;
  Service& operator=(const Service&) = delete;

  // Blocks. Returns the process exit code (0 on a clean stop).
  int Run(const std::atomic<bool>& stop);

  ServiceStatus Status() const;
  // The bound metrics URL once Run() has started the HTTP server, else "".
  std::string MetricsUrl() const;

 private:
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace vanon
