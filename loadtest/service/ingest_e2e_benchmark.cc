// End-to-end ingestion throughput: synthetic fleet -> Kafka (librdkafka's
// mock cluster, real protocol, in-process) -> vanon (validate, decode, HMAC,
// buffer in memory: nothing goes to RocksDB) beside `kcat -C` reading the
// same topic in the same run, so the ratio says how much vanon costs over a
// bare consumer. vanon runs as its own process (`vanon run`), so the cost
// figure, CPU seconds per million events, is the vanon process's alone,
// beside kcat's.
//
// Both are timed over the same window of the topic: from the moment they
// have consumed the first `warmup` events to the last event. The warm-up
// keeps start-up out of the figure for both (group join, offset lookup,
// kcat's own start; in vanon, the first sight of most of the fleet's
// 100,000 vehicles: VIN decoding, HMAC, cache inserts), so the figure is
// the steady rate of a service whose fleet it has seen before. The cold
// rate over the whole topic is reported beside it (`*_cold_events_per_s`).
//
// The mock keeps only about 5 MB per partition, so the topic is preloaded
// below that (64 partitions x ~4 MB) and the low watermark is checked before
// measuring: a truncated input would flatter the numbers.
#include <benchmark/benchmark.h>
#include <librdkafka/rdkafkacpp.h>

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string_view>
#include <thread>
#include <vector>

#include "vanon/config.h"
#include "vanon/fleet/fleet_generator.h"
#include "vanon/kafka/mock_cluster.h"
#include "vanon/kafka/producer.h"
#include "vanon/vehicle/vin_decoder.h"
#include "process_cpu.h"
#include "vanon_process.h"

namespace vanon {
namespace {

constexpr int64_t kEpochMs = 60000;

int64_t SumLowWatermarks(const std::string& bootstrap, const std::string& topic, int partitions) {
  std::string err;
  std::unique_ptr<RdKafka::Conf> conf(RdKafka::Conf::create(RdKafka::Conf::CONF_GLOBAL));
  conf->set("bootstrap.servers", bootstrap, err);
  std::unique_ptr<RdKafka::Producer> p(RdKafka::Producer::create(conf.get(), err));
  int64_t sum = 0;
  for (int i = 0; i < partitions; ++i) {
    int64_t lo = 0, hi = 0;
    p->query_watermark_offsets(topic, i, &lo, &hi, 10000);
    sum += lo;
  }
  return sum;
}

double Seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Config overrides for the service beyond the benchmark's own, to compare
// settings: `--set=KEY=VALUE`, repeatable, taken out of argv before Google
// Benchmark reads it.
std::vector<std::string>& ExtraSets() {
  static std::vector<std::string> sets;
  return sets;
}

// One timed read of the topic by `kcat -C`, printing one short line per
// message into a pipe that this process counts: the same window as vanon's.
struct KcatRun {
  bool ok = false;
  double cold_s = 0;    // start of the process to the last message
  double window_s = 0;  // message `warmup` to the last
  double window_cpu_s = 0;
};

KcatRun ReadWithKcat(const std::string& bootstrap, const std::string& topic, uint64_t events, uint64_t warmup) {
  KcatRun run;
  int fd[2];
  if (pipe(fd) != 0) return run;
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    close(fd[1]);
    execlp("kcat", "kcat", "-C", "-b", bootstrap.c_str(), "-t", topic.c_str(), "-o", "beginning", "-e", "-q", "-f",
           "%o\n", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fd[1]);
  if (pid < 0) {
    close(fd[0]);
    return run;
  }
  FILE* in = fdopen(fd[0], "r");
  char line[64];
  uint64_t seen = 0;
  std::chrono::steady_clock::time_point warm{};
  double cpu_warm = 0;
  while (fgets(line, sizeof line, in) != nullptr) {
    if (++seen == warmup) {
      warm = std::chrono::steady_clock::now();
      cpu_warm = loadtest::ProcessCpuSeconds(pid);
    }
  }
  const auto end = std::chrono::steady_clock::now();
  fclose(in);
  // kcat has closed its output and is exiting: its CPU is final once it is
  // a zombie, still readable before it is reaped.
  double cpu_end = -1;
  siginfo_t info{};
  if (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) == 0) cpu_end = loadtest::ProcessCpuSeconds(pid);
  int status = 0;
  waitpid(pid, &status, 0);
  run.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && seen == events && cpu_end >= 0;
  run.cold_s = Seconds(t0, end);
  run.window_s = Seconds(warm, end);
  run.window_cpu_s = cpu_end - cpu_warm;
  return run;
}

void BM_IngestEndToEnd(benchmark::State& state) {
  const uint64_t events = static_cast<uint64_t>(state.range(0));
  const int partitions = static_cast<int>(state.range(1));
  const uint64_t warmup = static_cast<uint64_t>(state.range(2));
  for (auto _ : state) {
    kafka::MockCluster cluster(1);
    const std::string topic = "vehicle.events.raw";
    cluster.CreateTopic(topic, partitions);
    cluster.CreateTopic("vehicle.events.dlq", 1);
    cluster.CreateTopic("vanon.state.changelog", partitions);  // on by default
    {
      fleet::VinDecoder table =
          fleet::VinDecoder::Load(std::string(VANON_SOURCE_DIR) + "/config/vehicle/vin-table.yaml");
      fleet::FleetOptions fo;
      fo.vehicles = 100000;
      fo.events_per_second = 100000;
      // An hour ago, 1 s into a 60 s epoch (the production default length,
      // set below): the topic's few seconds of event time close no epoch, so
      // what is timed is ingestion alone; bench_release_e2e times releases.
      const int64_t hour_ago =
          std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
              .count() -
          3600000;
      fo.start_ms = hour_ago - hour_ago % kEpochMs + 1000;
      fleet::FleetGenerator gen(fo, table);
      kafka::Producer producer(cluster.Bootstrap(), {}, {}, {{"linger.ms", "50"}, {"batch.num.messages", "10000"}});
      for (uint64_t i = 0; i < events; ++i) {
        const fleet::FleetMessage& m = gen.Next();
        producer.Produce(topic, -1, m.key, m.value);
      }
      producer.Flush(120000);
    }
    if (SumLowWatermarks(cluster.Bootstrap(), topic, partitions) != 0) {
      state.SkipWithError("mock cluster truncated the preloaded topic; lower the event count");
      return;
    }

    // kcat: a bare consumer of the same topic, same run.
    const KcatRun kcat = ReadWithKcat(cluster.Bootstrap(), topic, events, warmup);
    if (!kcat.ok) {
      state.SkipWithError("kcat failed or read fewer messages than were produced");
      return;
    }

    std::string dir = (std::filesystem::temp_directory_path() / "vanon-bench-state").string();
    std::filesystem::remove_all(dir);
    const std::string config = std::string(VANON_SOURCE_DIR) + "/config/demo.yaml";
    const auto v0 = std::chrono::steady_clock::now();
    std::vector<std::string> sets = {"kafka.bootstrap=" + cluster.Bootstrap(), "state.dir=" + dir,
                                     "http.listen=127.0.0.1:19465", "kafka.poll_batch_max=5000",
                                     "privacy.epoch.length_seconds=" + std::to_string(kEpochMs / 1000)};
    sets.insert(sets.end(), ExtraSets().begin(), ExtraSets().end());
    loadtest::VanonProcess service(VANON_BINARY, config, sets, "benchmark-hmac-key-0123456789abcdef", 19465,
                                   dir + ".log");
    std::chrono::steady_clock::time_point first{}, warm{}, last{};
    double cpu_warm = 0, cpu_last = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
    while (std::chrono::steady_clock::now() < deadline) {
      uint64_t c = service.Progress().consumed;
      auto now = std::chrono::steady_clock::now();
      if (c > 0 && first == std::chrono::steady_clock::time_point{}) first = now;
      if (c >= warmup && warm == std::chrono::steady_clock::time_point{}) {
        warm = now;
        cpu_warm = service.CpuSeconds();
      }
      if (c >= events) {
        last = now;
        cpu_last = service.CpuSeconds();
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const int rc = service.Stop();
    std::filesystem::remove_all(dir);
    if (last == std::chrono::steady_clock::time_point{} || rc != 0) {
      state.SkipWithError(("vanon did not consume everything within 300 s or failed; log: " + dir + ".log").c_str());
      return;
    }
    std::filesystem::remove(dir + ".log");
    // CLOCK_MONOTONIC seconds of the window, to cut a profile of vanon (perf
    // record -k CLOCK_MONOTONIC) to what the figures below measure.
    std::fprintf(stderr, "vanon window: monotonic %.6f %.6f\n",
                 std::chrono::duration<double>(warm.time_since_epoch()).count(),
                 std::chrono::duration<double>(last.time_since_epoch()).count());
    const double measured = static_cast<double>(events - warmup);
    const double vanon_s = Seconds(warm, last);
    state.SetIterationTime(vanon_s);
    state.counters["vanon_events_per_s"] = measured / vanon_s;
    state.counters["kcat_events_per_s"] = measured / kcat.window_s;
    state.counters["vanon_over_kcat"] = kcat.window_s / vanon_s;
    // Cold: everything, from the first consumed event (vanon: the group
    // join is not counted) or kcat's start, so start-up counts against kcat.
    state.counters["vanon_cold_events_per_s"] = static_cast<double>(events) / Seconds(first, last);
    state.counters["kcat_cold_events_per_s"] = static_cast<double>(events) / kcat.cold_s;
    state.counters["vanon_start_s"] = Seconds(v0, first);
    // The cost figure: CPU seconds per million events over the window,
    // vanon's own process and kcat's.
    const double vanon_cpu_per_m = (cpu_last - cpu_warm) / measured * 1e6;
    const double kcat_cpu_per_m = kcat.window_cpu_s / measured * 1e6;
    state.counters["vanon_cpu_s_per_M"] = vanon_cpu_per_m;
    state.counters["kcat_cpu_s_per_M"] = kcat_cpu_per_m;
    state.counters["vanon_cpu_over_kcat"] = kcat_cpu_per_m > 0 ? vanon_cpu_per_m / kcat_cpu_per_m : 0;
  }
}
// 1,200,000 events of 100,000 vehicles in 64 partitions (about 4 MB each,
// under the mock's retention), timed after the first 200,000.
BENCHMARK(BM_IngestEndToEnd)
    ->Args({1200000, 64, 200000})
    ->ArgNames({"events", "partitions", "warmup"})
    ->Iterations(1)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vanon

int main(int argc, char** argv) {
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a.rfind("--set=", 0) == 0) {
      vanon::ExtraSets().emplace_back(a.substr(6));
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
