// Sustained end-to-end rate of vanon with releases on: the fleet
// generator -> Kafka (librdkafka's in-process mock cluster) -> vanon (ingest,
// 10 s epochs, m-invariant releases in Kafka transactions) -> anonymized and
// releases topics, read back concurrently by read_committed consumers; then,
// in the same run, `kcat -C | kcat -P` moving the same number of messages at
// the same offered rate between two other topics.
//
// Event time follows wall time, so epochs close in real time and the rate is
// one the service sustains while releasing, not a burst through a preloaded
// topic. The mock keeps only about 5 MB per partition: input that vanon (or
// kcat) fell too far behind on is deleted before it is read. That is counted
// (`*_lost`) rather than hidden, and a run with losses did not sustain its
// offered rate.
//
// Flags (besides --benchmark_*): --rate --vehicles --duration --warmup
// --partitions --kcat; see bench_flags.h and README.md.
#include <benchmark/benchmark.h>
#include <spdlog/cfg/env.h>
#include <spdlog/spdlog.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "bench_flags.h"
#include "kcat_pipe.h"
#include "paced_fleet.h"
#include "process_cpu.h"
#include "release_latency.h"
#include "scraped_histogram.h"
#include "topic_counter.h"
#include "vanon/config.h"
#include "vanon/kafka/mock_cluster.h"
#include "vanon_process.h"

namespace vanon::loadtest {
namespace {

using Clock = std::chrono::steady_clock;

BenchFlags g_flags;

double Seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string MakeStateDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "vanon-bench-release-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("cannot create a state dir in /tmp");
  return tmpl;
}

// The config refuses port 0, so ask the kernel for a free port and hand it
// over (a benign race on a quiet machine).
int FreeLocalPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("socket failed");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    close(fd);
    throw std::runtime_error("cannot find a free port");
  }
  close(fd);
  return ntohs(a.sin_port);
}

double PeakRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// Runs `fleet` on a thread and keeps the first exception it throws.
class FleetThread {
 public:
  explicit FleetThread(const PacedFleetOptions& o)
      : fleet_(o), thread_([this] {
          try {
            fleet_.Run();
          } catch (const std::exception& e) {
            error_ = e.what();
          }
        }) {}
  ~FleetThread() { Join(); }
  // Stops producing now.
  void Join() {
    fleet_.Stop();
    Wait();
  }
  // Lets it produce up to its max_messages first.
  void Wait() {
    if (thread_.joinable()) thread_.join();
  }
  PacedFleet& fleet() { return fleet_; }
  const std::string& error() const { return error_; }  // after Join()

 private:
  PacedFleet fleet_;
  std::string error_;
  std::thread thread_;
};

template <typename Pred>
bool WaitFor(Pred done, double timeout_s) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  while (!done()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

struct KcatResult {
  double per_s = 0;
  int64_t lost = 0;
  double cpu_s_per_million = 0;  // both kcat processes, over the window
};

// The yardstick: the same number of messages at the same offered rate,
// through nothing but a consumer and a producer.
KcatResult RunKcat(kafka::MockCluster& cluster, const PacedFleetOptions& like, uint64_t messages) {
  const std::string in = "bench.kcat.in", out = "bench.kcat.out";
  cluster.CreateTopic(in, g_flags.partitions);
  cluster.CreateTopic(out, g_flags.partitions);
  const std::string bootstrap = cluster.Bootstrap();
  TopicCounter reader(bootstrap, out, g_flags.partitions);  // the same read-back load as vanon's phase
  KcatPipe pipe(bootstrap, in, out);
  std::this_thread::sleep_for(std::chrono::seconds(2));  // let kcat -C find its partitions
  PacedFleetOptions o = like;
  o.topic = in;
  o.max_messages = messages;
  FleetThread fleet(o);
  if (!WaitFor([&] { return reader.read() > 0; }, 60)) throw std::runtime_error("kcat: nothing came through");
  const auto start = reader.first_at() + std::chrono::duration<double>(g_flags.warmup_s);
  std::this_thread::sleep_until(start);
  const int64_t h0 = SumHighWatermarks(bootstrap, out, g_flags.partitions);
  const double cpu0 = GroupCpuSeconds(pipe.pgid());
  const auto t0 = Clock::now();
  const auto end = start + std::chrono::duration<double>(g_flags.duration_s);
  while (Clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::seconds(5));
    std::fprintf(stderr, "[kcat %5.1fs] produced %llu in %lld out %lld\n", Seconds(t0, Clock::now()),
                 static_cast<unsigned long long>(fleet.fleet().produced()),
                 static_cast<long long>(SumHighWatermarks(bootstrap, in, g_flags.partitions)),
                 static_cast<long long>(SumHighWatermarks(bootstrap, out, g_flags.partitions)));
  }
  const int64_t h1 = SumHighWatermarks(bootstrap, out, g_flags.partitions);
  const double cpu1 = GroupCpuSeconds(pipe.pgid());
  const auto t1 = Clock::now();
  fleet.Wait();
  if (!fleet.error().empty()) throw std::runtime_error("kcat phase producer: " + fleet.error());
  // Drained when the output stops growing for 3 s.
  int64_t last = -1;
  while (true) {
    int64_t h = SumHighWatermarks(bootstrap, out, g_flags.partitions);
    if (h == last || h >= static_cast<int64_t>(messages)) {
      last = h;
      break;
    }
    last = h;
    std::this_thread::sleep_for(std::chrono::seconds(3));
  }
  pipe.Stop();
  const double moved = static_cast<double>(h1 - h0);
  return {moved / Seconds(t0, t1), static_cast<int64_t>(messages) - last, moved > 0 ? (cpu1 - cpu0) / moved * 1e6 : 0};
}

// The service's per-batch log lines (shares, events, changelog records,
// offsets and commit seconds) on stderr, where run_benchmarks.py and
// run_changelog_cost.py keep them: where a release's time went, per run.
void EchoBatchLines(const std::string& log_path) {
  std::ifstream in(log_path);
  for (std::string line; std::getline(in, line);) {
    if (line.find("release batch:") != std::string::npos || line.find("changelog records:") != std::string::npos)
      std::fprintf(stderr, "vanon-log: %s\n", line.c_str());
  }
}

constexpr char kHmacKey[] = "benchmark-hmac-key-0123456789abcdef";

struct RestoreResult {
  double ready_s = 0;      // kill -9 to /readyz ready
  double caught_up_s = 0;  // kill -9 to less than a second of input behind
  uint64_t input_lost = 0;
  std::string error;
};

// Recovery from a crash, as a pod restarted on its volume sees it: with the
// fleet producing, waits for a release to commit, kills vanon with SIGKILL
// half a second later, starts it again on the same state and times it from
// the kill until it is ready and until it is less than one second of input
// behind, having read again what it buffered since its last release.
RestoreResult KillAndRestore(const PacedFleetOptions& fo, const ReleaseLatency& latency, const std::string& config,
                             std::vector<std::string>* overrides, const std::string& dir,
                             std::unique_ptr<VanonProcess>* service) {
  RestoreResult r;
  FleetThread fleet(fo);
  const size_t releases = latency.CompleteSeries().size();
  if (!WaitFor([&] { return latency.CompleteSeries().size() > releases; }, 60)) {
    r.error = "no release within 60 s before the kill";
    return r;
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto killed = Clock::now();
  (*service)->Kill();
  const int port = FreeLocalPort();
  for (std::string& o : *overrides) {
    if (o.starts_with("http.listen=")) o = "http.listen=127.0.0.1:" + std::to_string(port);
  }
  *service = std::make_unique<VanonProcess>(VANON_BINARY, config, *overrides, kHmacKey, port, dir + ".restart.log");
  const uint64_t behind = static_cast<uint64_t>(g_flags.rate);  // one second of input
  const auto deadline = killed + std::chrono::seconds(180);
  while (Clock::now() < deadline) {
    const VanonProgress p = (*service)->Progress();
    if (p.ok && p.ready && r.ready_s == 0) r.ready_s = Seconds(killed, Clock::now());
    // consumed counts input past what the killed process had counted, so
    // the lag gauge has been set by then.
    if (p.ok && p.ready && p.consumed > 0 && p.lag < behind) {
      r.caught_up_s = Seconds(killed, Clock::now());
      r.input_lost = p.input_lost;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  fleet.Join();
  if (r.caught_up_s == 0) r.error = "not caught up within 180 s of the kill (restore_s -1)";
  if (r.error.empty() && !fleet.error().empty()) r.error = "producer: " + fleet.error();
  return r;
}

void BM_ReleaseEndToEnd(benchmark::State& state) {
  const BenchFlags& f = g_flags;
  for (auto _ : state) {
    kafka::MockCluster cluster(1);
    const std::string bootstrap = cluster.Bootstrap();
    const std::string dir = MakeStateDir();
    const int http_port = FreeLocalPort();
    std::vector<std::string> overrides = {"kafka.bootstrap=" + bootstrap,
                                          "state.dir=" + dir,
                                          "http.listen=127.0.0.1:" + std::to_string(http_port),
                                          "kafka.poll_batch_max=5000",
                                          "privacy.epoch.length_seconds=10",
                                          "privacy.epoch.allowed_lateness_seconds=2",
                                          "privacy.epoch.idle_timeout_seconds=5"};
    if (f.restore) {
      // A killed member leaves the group only when its session times out:
      // librdkafka's default (45 s) would be most of the measured recovery,
      // and more input than the mock keeps per partition. Kafka's smallest
      // default (group.min.session.timeout.ms) instead; docs/operations.md
      // says what a restart costs with either.
      overrides.push_back("kafka.consumer_properties.session.timeout.ms=6000");
      overrides.push_back("kafka.consumer_properties.heartbeat.interval.ms=2000");
    }
    overrides.insert(overrides.end(), f.set.begin(), f.set.end());
    const std::string config_path = std::string(VANON_SOURCE_DIR) + "/config/demo.yaml";
    config::Config config = config::LoadConfig(config_path, overrides);
    const config::KafkaTopics& t = config.kafka.topics;
    cluster.CreateTopic(t.input, f.partitions);
    cluster.CreateTopic(t.dlq, 1);
    if (config.state.changelog.enabled) cluster.CreateTopic(config.state.changelog.topic, f.partitions);
    for (const std::string* name : {&t.anonymized, &t.releases, &t.counts, &t.late}) {
      cluster.CreateTopic(*name, f.partitions);
    }
    const int64_t epoch_ms = config.privacy.epoch.length_seconds * 1000;
    const int64_t lateness_ms = config.privacy.epoch.allowed_lateness_seconds * 1000;

    ReleaseLatency latency(lateness_ms);
    std::atomic<uint64_t> bad_summaries{0};
    TopicCounter anonymized(bootstrap, t.anonymized, f.partitions, nullptr, f.readback_nice);
    TopicCounter releases(bootstrap, t.releases, f.partitions, [&](int32_t, std::string_view v, int64_t seen) {
      if (!latency.Observe(v, seen)) bad_summaries++;
    });

    // vanon in its own process, so its CPU is its own (the broker, the
    // fleet and the read-back consumers run in this one).
    auto service =
        std::make_unique<VanonProcess>(VANON_BINARY, config_path, overrides, kHmacKey, http_port, dir + ".log");
    int service_rc = 0;

    PacedFleetOptions fo;
    fo.bootstrap = bootstrap;
    fo.topic = t.input;
    fo.vin_table = std::string(VANON_SOURCE_DIR) + "/config/vehicle/vin-table.yaml";
    fo.vehicles = f.vehicles;
    fo.rate = f.rate;
    FleetThread fleet(fo);
    PacedFleet& gen = fleet.fleet();

    auto stop_service = [&] {
      service_rc = service->Stop();
      std::filesystem::remove_all(dir);
    };
    if (!WaitFor([&] { return service->Progress().consumed > 0; }, 60)) {
      stop_service();
      state.SkipWithError("vanon consumed nothing within 60 s");
      return;
    }
    // The window starts after the warm-up and is sampled every 200 ms for
    // the worst backlog (produced - consumed).
    const auto start = Clock::now() + std::chrono::duration<double>(f.warmup_s);
    std::this_thread::sleep_until(start);
    const auto t0 = Clock::now();
    const int64_t wall0 = WallMs();
    const VanonProgress s0 = service->Progress();
    const double cpu0 = service->CpuSeconds();
    const uint64_t p0 = gen.produced();
    const auto end = t0 + std::chrono::duration<double>(f.duration_s);
    uint64_t backlog_max = 0;
    auto next_report = t0;
    while (Clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      VanonProgress s = service->Progress();
      if (!s.ok) continue;
      uint64_t produced = gen.produced();
      backlog_max = std::max<uint64_t>(backlog_max, produced > s.consumed ? produced - s.consumed : 0);
      if (Clock::now() >= next_report) {  // loadtest/run_benchmarks.py plots these lines
        std::fprintf(stderr, "[%5.1fs] produced %llu consumed %llu released %llu releases %llu waiting %llu\n",
                     Seconds(t0, Clock::now()), static_cast<unsigned long long>(produced),
                     static_cast<unsigned long long>(s.consumed), static_cast<unsigned long long>(s.released),
                     static_cast<unsigned long long>(s.releases), static_cast<unsigned long long>(s.waiting));
        next_report += std::chrono::seconds(1);
      }
    }
    const VanonProgress s1 = service->Progress();
    const double cpu1 = service->CpuSeconds();
    const uint64_t p1 = gen.produced();
    const auto t1 = Clock::now();
    const int64_t wall1 = WallMs();
    // Epochs that end inside the window are released on time only if input
    // keeps coming past their end + lateness (otherwise the idle timeout
    // closes them): produce a little longer, then wait for their summaries.
    std::this_thread::sleep_for(std::chrono::milliseconds(lateness_ms + 2000));
    fleet.Join();
    const int64_t first_epoch_end = (wall0 / epoch_ms + 1) * epoch_ms;
    const int64_t epochs = (wall1 - first_epoch_end) / epoch_ms + 1;     // those ending in the window
    const int64_t last_epoch_end = first_epoch_end + epochs * epoch_ms;  // exclusive bound
    WaitFor([&] { return latency.Complete(first_epoch_end, last_epoch_end).count >= static_cast<size_t>(epochs); }, 60);
    const std::string exposition = FetchMetrics(service->MetricsUrl());
    const std::string log_path = dir + ".log";
    // Drained when vanon has consumed all it can: what is missing then was
    // deleted by the mock's retention before vanon reached it.
    uint64_t consumed = 0;
    const uint64_t produced_total = gen.produced();
    for (;;) {
      uint64_t c = service->Progress().consumed;
      if (c >= produced_total || c == consumed) {
        consumed = c;
        break;
      }
      consumed = c;
      std::this_thread::sleep_for(std::chrono::seconds(3));
    }
    const VanonProgress final_status = service->Progress();
    const double vanon_peak_rss_mb = ProcessPeakRssMb(service->pid());
    RestoreResult restore;
    if (f.restore) {
      // A recovery that fails is a figure too (-1), not a lost run.
      restore = KillAndRestore(fo, latency, config_path, &overrides, dir, &service);
      if (!restore.error.empty()) std::fprintf(stderr, "restore: %s\n", restore.error.c_str());
    }
    stop_service();
    if (!fleet.error().empty() || service_rc != 0) {
      state.SkipWithError(("producer or service failed (vanon log: " + log_path + "): " + fleet.error()).c_str());
      return;
    }
    EchoBatchLines(log_path);
    std::filesystem::remove(log_path);

    const double window = Seconds(t0, t1);
    // For the plot (t on the window's clock) and for pooling latencies over
    // runs (in_window: the releases release_p50_s is computed from).
    for (const auto& [end, latency] : latency.CompleteSeries()) {
      std::fprintf(stderr, "release-latency t=%.1f s=%.3f in_window=%d\n",
                   static_cast<double>(end + lateness_ms - wall0) / 1000.0, latency,
                   end >= first_epoch_end && end < last_epoch_end ? 1 : 0);
    }
    const LatencyStats complete = latency.Complete(first_epoch_end, last_epoch_end);
    const LatencyStats shares = latency.Shares(first_epoch_end, last_epoch_end);
    const uint64_t out_events = latency.Events(first_epoch_end, last_epoch_end);
    const double vanon_in = static_cast<double>(s1.consumed - s0.consumed) / window;
    state.SetIterationTime(window);
    state.counters["offered_per_s"] = f.rate;
    state.counters["produced_per_s"] = static_cast<double>(p1 - p0) / window;
    state.counters["vanon_in_per_s"] = vanon_in;
    // The cost figure: the vanon process's own CPU (all its threads:
    // consuming, releasing, computing, RocksDB, librdkafka) per million
    // input events, over the measured window.
    const double vanon_cpu_per_m =
        s1.consumed > s0.consumed ? (cpu1 - cpu0) / static_cast<double>(s1.consumed - s0.consumed) * 1e6 : 0;
    state.counters["vanon_cpu_s_per_M"] = vanon_cpu_per_m;
    state.counters["vanon_out_per_s"] = static_cast<double>(out_events) / static_cast<double>(epochs * epoch_ms / 1000);
    state.counters["window_epochs"] = static_cast<double>(epochs);
    state.counters["releases_complete"] = static_cast<double>(complete.count);
    state.counters["release_p50_s"] = complete.p50_s;
    state.counters["release_max_s"] = complete.max_s;
    state.counters["share_max_s"] = shares.max_s;
    state.counters["backlog_max"] = static_cast<double>(backlog_max);
    state.counters["producer_lag_max_ms"] = static_cast<double>(gen.max_lag_ms());
    state.counters["input_lost"] = static_cast<double>(produced_total - consumed);
    state.counters["anon_read"] = static_cast<double>(anonymized.read());
    state.counters["anon_topic"] = static_cast<double>(SumHighWatermarks(bootstrap, t.anonymized, f.partitions));
    state.counters["released_total"] = static_cast<double>(final_status.released);
    state.counters["suppressed_tuples_total"] = static_cast<double>(final_status.suppressed_tuples);
    state.counters["anon_truncated"] = static_cast<double>(anonymized.truncated());
    state.counters["bad_summaries"] = static_cast<double>(bad_summaries.load());
    if (auto h = ParseHistogram(exposition, "vanon_release_duration_seconds")) {
      state.counters["hist_shares"] = h->count;
      state.counters["hist_mean_s"] = h->mean();
      state.counters["hist_p99_le_s"] = h->UpperBound(0.99);
    }
    state.counters["vanon_peak_rss_MB"] = vanon_peak_rss_mb;
    if (f.restore) {
      state.counters["restore_ready_s"] = restore.ready_s > 0 ? restore.ready_s : -1;
      state.counters["restore_s"] = restore.caught_up_s > 0 ? restore.caught_up_s : -1;
      state.counters["restore_input_lost"] = static_cast<double>(restore.input_lost);
    }
    state.counters["bench_peak_rss_MB"] = PeakRssMb();  // broker, fleet and readers
    if (f.kcat) {
      KcatResult k = RunKcat(cluster, fo, produced_total);
      state.counters["kcat_per_s"] = k.per_s;
      state.counters["kcat_lost"] = static_cast<double>(k.lost);
      state.counters["vanon_over_kcat"] = k.per_s > 0 ? vanon_in / k.per_s : 0;
      state.counters["kcat_cpu_s_per_M"] = k.cpu_s_per_million;
      state.counters["vanon_cpu_over_kcat"] = k.cpu_s_per_million > 0 ? vanon_cpu_per_m / k.cpu_s_per_million : 0;
    }
  }
}
BENCHMARK(BM_ReleaseEndToEnd)->Iterations(1)->UseManualTime()->Unit(benchmark::kSecond);

}  // namespace
}  // namespace vanon::loadtest

int main(int argc, char** argv) {
  if (!vanon::loadtest::ParseBenchFlags(&argc, argv, &vanon::loadtest::g_flags)) return 2;
  spdlog::set_level(spdlog::level::warn);  // per-release info lines would drown the counters
  spdlog::cfg::load_env_levels();          // ... unless SPDLOG_LEVEL=info asks for them
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
