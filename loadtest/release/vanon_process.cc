#include "vanon_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "process_cpu.h"
#include "scraped_histogram.h"

namespace vanon::loadtest {

namespace {

// Sum of every series of `name` in a text exposition (labels ignored).
double SumSeries(const std::string& text, const std::string& name) {
  double total = 0;
  size_t pos = 0;
  while ((pos = text.find(name, pos)) != std::string::npos) {
    const bool line_start = pos == 0 || text[pos - 1] == '\n';
    const size_t after = pos + name.size();
    pos = after;
    if (!line_start || after >= text.size() || (text[after] != ' ' && text[after] != '{')) continue;
    const size_t eol = text.find('\n', after);
    const size_t sp = text.rfind(' ', eol);
    total += std::strtod(text.c_str() + sp + 1, nullptr);
  }
  return total;
}

}  // namespace

VanonProcess::VanonProcess(const std::string& binary, const std::string& config, const std::vector<std::string>& sets,
                           const std::string& hmac_key, int http_port, const std::string& log_path)
    : port_(http_port) {
  // Another build of vanon for an A/B comparison in one run of a benchmark.
  const char* other = std::getenv("VANON_BENCH_BINARY");
  const std::string program = other != nullptr && *other != '\0' ? other : binary;
  std::vector<std::string> args = {program, "run", "--config", config};
  for (const std::string& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("vanon process: fork failed");
  if (pid_ == 0) {
    setenv("VANON_HMAC_KEY", hmac_key.c_str(), 1);
    // The key ring that seals internal-topic values (the changelog is on):
    // a benchmark's own, like its HMAC key.
    setenv("VANON_STATE_KEYS", "bench-1:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", 0);
    const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(program.c_str(), argv.data());
    _exit(127);
  }
}

VanonProcess::~VanonProcess() { Stop(); }

std::string VanonProcess::MetricsUrl() const { return "http://127.0.0.1:" + std::to_string(port_) + "/metrics"; }

VanonProgress VanonProcess::Progress() const {
  VanonProgress p;
  const std::string text = FetchMetrics(MetricsUrl());
  if (text.empty()) return p;
  p.ok = true;
  p.consumed = static_cast<uint64_t>(SumSeries(text, "vanon_events_consumed_total"));
  p.released = static_cast<uint64_t>(SumSeries(text, "vanon_events_released_total"));
  p.releases = static_cast<uint64_t>(SumSeries(text, "vanon_releases_total"));
  p.suppressed_tuples = static_cast<uint64_t>(SumSeries(text, "vanon_tuples_suppressed_total"));
  p.waiting = static_cast<uint64_t>(SumSeries(text, "vanon_tuples_waiting"));
  p.ready = SumSeries(text, "vanon_ready") > 0;
  p.input_lost = static_cast<uint64_t>(SumSeries(text, "vanon_input_lost_to_retention_total"));
  const std::string lag = "\nvanon_consumer_lag_messages{stat=\"sum\"} ";
  if (const size_t at = text.find(lag); at != std::string::npos) {
    p.lag = static_cast<uint64_t>(std::strtod(text.c_str() + at + lag.size(), nullptr));
  }
  return p;
}

double VanonProcess::CpuSeconds() const { return ProcessCpuSeconds(pid_); }

void VanonProcess::Kill() {
  if (pid_ < 0) return;
  kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  status_ = -1;
}

int VanonProcess::Stop() {
  if (pid_ < 0) return status_;
  kill(pid_, SIGTERM);
  // A release in flight is finished first; a process still there after a
  // minute is stuck, and a benchmark must not wait for it forever.
  int status = 0;
  pid_t done = 0;
  for (int i = 0; i < 600 && (done = waitpid(pid_, &status, WNOHANG)) == 0; ++i) usleep(100000);
  if (done == 0) {
    std::fprintf(stderr, "vanon (pid %d) still running 60 s after SIGTERM: killed\n", static_cast<int>(pid_));
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
  }
  pid_ = -1;
  status_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return status_;
}

}  // namespace vanon::loadtest
