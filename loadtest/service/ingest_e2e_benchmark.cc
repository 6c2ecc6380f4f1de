// End-to-end ingestion throughput: synthetic fleet -> Kafka (librdkafka's
// mock cluster, real protocol, in-process) -> vanon (validate, decode, HMAC,
// RocksDB write batch) beside `kcat -C` reading the same topic in the same
// run, so the ratio says how much vanon costs over a bare consumer.
//
// The mock keeps only about 5 MB per partition, so the topic is preloaded
// below that (8 partitions x ~4 MB) and the low watermark is checked before
// measuring: a truncated input would flatter the numbers.
#include <benchmark/benchmark.h>
#include <librdkafka/rdkafkacpp.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "vanon/config.h"
#include "vanon/fleet/fleet_generator.h"
#include "vanon/kafka/mock_cluster.h"
#include "vanon/kafka/producer.h"
#include "vanon/service/service.h"
#include "vanon/vehicle/vin_decoder.h"

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

void BM_IngestEndToEnd(benchmark::State& state) {
  const uint64_t events = static_cast<uint64_t>(state.range(0));
  for (auto _ : state) {
    MockCluster cluster(1);
    const std::string topic = "vehicle.events.raw";
    cluster.CreateTopic(topic, kPartitions);
    cluster.CreateTopic("vehicle.events.dlq", 1);
    {
      VinDecoder table = VinDecoder::Load(std::string(VANON_SOURCE_DIR) + "/config/vehicle/vin-table.yaml");
      FleetOptions fo;
      fo.vehicles = 100000;
      fo.events_per_second = 100000;
      fo.start_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::system_clock::now().time_since_epoch()).count() - 3600000;
      FleetGenerator gen(fo, table);
      Producer producer(cluster.Bootstrap(), {}, {}, {{"linger.ms", "50"}, {"batch.num.messages", "10000"}});
      for (uint64_t i = 0; i < events; ++i) {
        const FleetMessage& m = gen.Next();
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
    int krc = std::system(kcat.c_str());
    double kcat_s = Seconds(k0, std::chrono::steady_clock::now());
    if (krc != 0) {
      state.SkipWithError("kcat failed");
      return;
    }

    std::string dir = (std::filesystem::temp_directory_path() / "vanon-bench-state").string();
    std::filesystem::remove_all(dir);
    Config config = LoadConfig(std::string(VANON_SOURCE_DIR) + "/config/demo.yaml",
                               {"kafka.bootstrap=" + cluster.Bootstrap(), "state.dir=" + dir,
                                "http.listen=127.0.0.1:19465", "kafka.poll_batch_max=5000"});
    Service service(config, "benchmark-hmac-key-0123456789abcdef");
    std::atomic<bool> stop{false};
    std::thread t([&] { service.Run(stop); });
    // Measured from the first consumed event, so the consumer-group join
    // (a few seconds on the mock) is not counted against vanon.
    std::chrono::steady_clock::time_point first{}, last{};
    while (true) {
      uint64_t c = service.Status().consumed;
      auto now = std::chrono::steady_clock::now();
      if (c > 0 && first == std::chrono::steady_clock::time_point{}) first = now;
      if (c >= events) {
        last = now;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    stop = true;
    t.join();
    std::filesystem::remove_all(dir);
    double vanon_s = Seconds(first, last);
    state.SetIterationTime(vanon_s);
    state.counters["vanon_events_per_s"] = static_cast<double>(events) / vanon_s;
    state.counters["kcat_events_per_s"] = static_cast<double>(events) / kcat_s;
    state.counters["vanon_over_kcat"] = kcat_s / vanon_s;
  }
}
BENCHMARK(BM_IngestEndToEnd)->Arg(150000)->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vanon

BENCHMARK_MAIN();
