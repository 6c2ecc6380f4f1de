// Helpers for the service's tests: temporary directories, child processes
// (the real vanon and vanon-kafka binaries) and free loopback ports.
#ifndef VANON_TESTS_SERVICE_TEST_SUPPORT_H_
#define VANON_TESTS_SERVICE_TEST_SUPPORT_H_

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "vanon/seal/keyring.h"

namespace vanon::testing {

// The state key ring the tests seal internal topics with (never a product
// default: vanon refuses to start without one), as the ring's text and as
// the environment entry for a child `vanon run`.
inline constexpr char kTestStateKeys[] = "test-1:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
inline const std::string kStateKeysEnv = std::string("VANON_STATE_KEYS=") + kTestStateKeys;
inline seal::Keyring TestStateKeys() {
  std::string error;
  return *seal::Keyring::Parse(kTestStateKeys, &error);
}

class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A child process with stdout captured to a file. Killed (SIGKILL) on
// destruction if still running.
class Subprocess {
 public:
  // capture_stderr: stderr goes to the same file as stdout.
  Subprocess(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env = {},
             bool capture_stderr = false);
  ~Subprocess();
  // Waits up to timeout_s for the first stdout line; "" on timeout.
  std::string FirstLine(double timeout_s);
  std::string Output() const;
  void Signal(int sig);
  // Waits for exit; returns the exit status (128+signal if killed), -1 on timeout.
  int Wait(double timeout_s);
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  std::string out_path_;
  int status_ = -1;
  bool exited_ = false;
};

int FreePort();
// Seconds-resolution polling helper: true once pred() is true.
bool WaitFor(double timeout_s, const std::function<bool()>& pred);
std::string ReadFile(const std::string& path);

// The value of one series (its name and labels as exposed, e.g.
// `vanon_x_total{outcome="used"}`) in a Prometheus text exposition, or -1
// when it is absent.
double MetricValue(const std::string& exposition, const std::string& series);
// GET /metrics from 127.0.0.1:port, then MetricValue; -1 without an answer.
double ScrapeMetric(int port, const std::string& series);
void WriteFile(const std::string& path, const std::string& content);

}  // namespace vanon::testing

#endif  // VANON_TESTS_SERVICE_TEST_SUPPORT_H_
