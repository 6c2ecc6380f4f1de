// `vanon run` as a child process of a benchmark, so that its CPU can be
// read apart from everything else the benchmark runs (the cost per
// million events). Its progress comes from its own /metrics page, as an
// operator would see it.
#ifndef VANON_LOADTEST_RELEASE_VANON_PROCESS_H_
#define VANON_LOADTEST_RELEASE_VANON_PROCESS_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace vanon::loadtest {

struct VanonProgress {
  bool ok = false;  // false when /metrics could not be read
  uint64_t consumed = 0;
  uint64_t released = 0;           // events published
  uint64_t releases = 0;           // partition shares committed
  uint64_t suppressed_tuples = 0;  // all reasons
  uint64_t waiting = 0;            // tuples
  bool ready = false;              // vanon_ready
  uint64_t lag = 0;                // vanon_consumer_lag_messages{stat="sum"}
  uint64_t input_lost = 0;         // deleted by retention before it was read
};

class VanonProcess {
 public:
  // Starts `binary run --config config --set ...` with the HMAC key (and a
  // state key ring, unless VANON_STATE_KEYS is set already) in its
  // environment; its log goes to `log_path`. Throws if fork fails. The
  // environment variable VANON_BENCH_BINARY, if set, names another vanon
  // binary to run instead (A/B comparisons of two builds).
  VanonProcess(const std::string& binary, const std::string& config, const std::vector<std::string>& sets,
               const std::string& hmac_key, int http_port, const std::string& log_path);
  ~VanonProcess();  // Stop()
  VanonProcess(const VanonProcess&) = delete;
  VanonProcess& operator=(const VanonProcess&) = delete;

  VanonProgress Progress() const;
  std::string MetricsUrl() const;
  double CpuSeconds() const;
  pid_t pid() const { return pid_; }
  // SIGTERM, then waits; returns the exit status (-1 when killed by a signal).
  int Stop();
  // SIGKILL (a crash), then waits.
  void Kill();

 private:
  pid_t pid_ = -1;
  int port_;
  int status_ = -1;
};

}  // namespace vanon::loadtest

#endif  // VANON_LOADTEST_RELEASE_VANON_PROCESS_H_
