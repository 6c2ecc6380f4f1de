// Command-line knobs of bench_release_e2e. They are taken out of argv before
// Google Benchmark sees it, so its own --benchmark_* flags still work.
#ifndef VANON_LOADTEST_RELEASE_BENCH_FLAGS_H_
#define VANON_LOADTEST_RELEASE_BENCH_FLAGS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace vanon::loadtest {

struct BenchFlags {
  uint64_t vehicles = 100000;
  double rate = 100000;    // offered events/s, event time = wall time
  double duration_s = 60;  // measured window
  double warmup_s = 15;    // from the first consumed event: joins, first release
  int partitions = 4;
  bool kcat = true;
  // After the window: kill -9 vanon just after a release, start it again on
  // the same state and time its recovery (ready, caught up).
  bool restore = false;
  // Nice value of the thread (and its librdkafka threads) that reads the
  // anonymized topic back, 0-19. It only counts what it reads, but a release
  // is about 620,000 records: at nice 0 reading them took about a third of a
  // core from vanon during the very seconds its latency is measured, on a
  // machine of 2 cores where a consumer elsewhere would take nothing.
  int readback_nice = 19;
  std::vector<std::string> set;  // config overrides, KEY=VALUE, after the benchmark's own
};

// Removes --vehicles=N --rate=R --duration=S --warmup=S --partitions=P
// --kcat=0|1 --restore=0|1 --readback_nice=N and --set=KEY=VALUE
// (repeatable) from argv. Returns false (after printing why) on a bad value.
bool ParseBenchFlags(int* argc, char** argv, BenchFlags* flags);

}  // namespace vanon::loadtest

#endif  // VANON_LOADTEST_RELEASE_BENCH_FLAGS_H_
