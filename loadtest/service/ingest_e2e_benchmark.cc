// End-to-end ingestion throughput: synthetic fleet -> Kafka (librdkafka's
// mock cluster, real protocol, in-process) -> vanon (validate, decode, HMAC,
// buffer in memory: nothing goes to RocksDB) beside `kcat -C` reading the
// same topic in the same run, so the ratio says how much vanon costs over a
// bare consumer. vanon runs as its own process (`vanon run`), so the cost
// figure, CPU seconds per million events, is the vanon process's alone,
// beside kcat's.
//
// The mock keeps only about 5 MB per partition, so the topic is preloaded
// below that (8 partitions x ~4 MB) and the low watermark is checked before
// measuring: a truncated input would flatter the numbers.
#include <benchmark/benchmark.h>
#include <librdkafka/rdkafkacpp.h>

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "vanon/config.h"
#include "vanon/fleet/fleet_generator.h"
#include "vanon/kafka/mock_cluster.h"
#include "vanon/kafka/producer.h"
#include "vanon/vehicle/vin_decoder.h"
#include "vanon_process.h"

namespace vanon {
namespace {

constexpr int kPartitions = 8;

int64_t SumLowWatermarks(const std::string& bootstrap, const std::string& topic) {
  std::string err;
  std::unique_ptr<RdKafka::Conf> conf(RdKafka::Conf::create(RdKafka::Conf::CONF_GLOBAL));
  conf->set("bootstrap.servers", bootstrap, err);
  std::unique_ptr<RdKafka::Producer> p(RdKafka::Producer::create(conf.get(), err));
  int64_t sum = 0;
  for (int i = 0; i < kPartitions; ++i) {
    int64_t lo = 0, hi = 0;
    p->query_watermark_offsets(topic, i, &lo, &hi, 10000);
    sum += lo;
  }
  return sum;
}

double Seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// CPU seconds of the children this process has waited for.
double ChildrenCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

void BM_IngestEndToEnd(benchmark::State& state) {
  const uint64_t events = static_cast<uint64_t>(state.range(0));
  for (auto _ : state) {
    kafka::MockCluster cluster(1);
    const std::string topic = "vehicle.events.raw";
    cluster.CreateTopic(topic, kPartitions);
    cluster.CreateTopic("vehicle.events.dlq", 1);
    cluster.CreateTopic("vanon.state.changelog", kPartitions);  // on by default
    {
      fleet::VinDecoder table =
          fleet::VinDecoder::Load(std::string(VANON_SOURCE_DIR) + "/config/vehicle/vin-table.yaml");
      fleet::FleetOptions fo;
      fo.vehicles = 100000;
      fo.events_per_second = 100000;
      fo.start_ms =
          std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
              .count() -
          3600000;
      fleet::FleetGenerator gen(fo, table);
      kafka::Producer producer(cluster.Bootstrap(), {}, {}, {{"linger.ms", "50"}, {"batch.num.messages", "10000"}});
      for (uint64_t i = 0; i < events; ++i) {
        const fleet::FleetMessage& m = gen.Next();
        producer.Produce(topic, -1, m.key, m.value);
      }
      producer.Flush(120000);
    }
    if (SumLowWatermarks(cluster.Bootstrap(), topic) != 0) {
      state.SkipWithError("mock cluster truncated the preloaded topic; lower the event count");
      return;
    }

    // kcat: a bare consumer of the same topic, same run.
    std::string kcat = "kcat -C -b " + cluster.Bootstrap() + " -t " + topic + " -o beginning -e -q > /dev/null 2>&1";
    auto k0 = std::chrono::steady_clock::now();
    const double kcpu0 = ChildrenCpuSeconds();
    int krc = std::system(kcat.c_str());
    double kcat_s = Seconds(k0, std::chrono::steady_clock::now());
    const double kcat_cpu = ChildrenCpuSeconds() - kcpu0;
    if (krc != 0) {
      state.SkipWithError("kcat failed");
      return;
    }

    std::string dir = (std::filesystem::temp_directory_path() / "vanon-bench-state").string();
    std::filesystem::remove_all(dir);
    const std::string config = std::string(VANON_SOURCE_DIR) + "/config/demo.yaml";
    loadtest::VanonProcess service(VANON_BINARY, config,
                                   {"kafka.bootstrap=" + cluster.Bootstrap(), "state.dir=" + dir,
                                    "http.listen=127.0.0.1:19465", "kafka.poll_batch_max=5000"},
                                   "benchmark-hmac-key-0123456789abcdef", 19465, dir + ".log");
    // Measured from the first consumed event, so the consumer-group join
    // (a few seconds on the mock) is not counted against vanon.
    std::chrono::steady_clock::time_point first{}, last{};
    double cpu_first = 0, cpu_last = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
    while (std::chrono::steady_clock::now() < deadline) {
      uint64_t c = service.Progress().consumed;
      auto now = std::chrono::steady_clock::now();
      if (c > 0 && first == std::chrono::steady_clock::time_point{}) {
        first = now;
        cpu_first = service.CpuSeconds();
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
    double vanon_s = Seconds(first, last);
    state.SetIterationTime(vanon_s);
    state.counters["vanon_events_per_s"] = static_cast<double>(events) / vanon_s;
    state.counters["kcat_events_per_s"] = static_cast<double>(events) / kcat_s;
    state.counters["vanon_over_kcat"] = kcat_s / vanon_s;
    // The cost figure: CPU seconds per million events, vanon's own process
    // (its first to its last consumed event) and kcat's.
    const double vanon_cpu_per_m = (cpu_last - cpu_first) / static_cast<double>(events) * 1e6;
    const double kcat_cpu_per_m = kcat_cpu / static_cast<double>(events) * 1e6;
    state.counters["vanon_cpu_s_per_M"] = vanon_cpu_per_m;
    state.counters["kcat_cpu_s_per_M"] = kcat_cpu_per_m;
    state.counters["vanon_cpu_over_kcat"] = kcat_cpu_per_m > 0 ? vanon_cpu_per_m / kcat_cpu_per_m : 0;
  }
}
BENCHMARK(BM_IngestEndToEnd)->Arg(150000)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vanon

BENCHMARK_MAIN();
