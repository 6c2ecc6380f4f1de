// The vanon service: consumes raw events, validates and buffers them in
// state, publishes a release per partition whenever an epoch closes, serves
// metrics and health. Run() returns when `stop` becomes true, after
// finishing the current batch or release, flushing and closing state.
#ifndef VANON_SERVICE_SERVICE_H_
#define VANON_SERVICE_SERVICE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "vanon/config.h"
#include "vanon/seal/keyring.h"

namespace prometheus {
class Registry;
}

namespace vanon::service {

// A consistent-enough snapshot for the demo's status line.
struct ServiceStatus {
  uint64_t consumed = 0;
  uint64_t accepted = 0;
  uint64_t rejected = 0;
  uint64_t buffered = 0;
  uint64_t late = 0;
  uint64_t released = 0;    // events published
  uint64_t suppressed = 0;  // events of suppressed tuples
  uint64_t releases = 0;    // partition shares committed
  uint64_t waiting = 0;     // tuples
  int partitions = 0;
  bool ready = false;
  // The last committed partition share (releases > 0).
  int64_t last_release = 0;
  double last_suppression_ratio = 0;
  double last_emd_max = 0;
  double last_counterfeit_ratio = 0;
  uint64_t last_groups = 0;
  bool dp_paused = false;           // the DP budget of some partition is exhausted
  bool partitions_changed = false;  // consumption stopped: see PartitionGuard
};

class Service {
 public:
  // hmac_key: the secret (already read from the environment); non-empty.
  // state_keys: the key ring sealing internal-topic values; required when
  // config::WritesInternalTopics(config) (throws std::invalid_argument).
  Service(config::Config config, std::string hmac_key, std::optional<seal::Keyring> state_keys);
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

}  // namespace vanon::service

#endif  // VANON_SERVICE_SERVICE_H_
