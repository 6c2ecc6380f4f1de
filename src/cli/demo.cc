#include "demo.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "hmac_key.h"
#include "loadgen.h"
#include "vanon/config.h"
#include "vanon/kafka/committed_reader.h"
#include "vanon/kafka/mock_cluster.h"
#include "vanon/service/json_log.h"
#include "vanon/service/service.h"

namespace vanon {

namespace {
// What a downstream consumer sees: a few records of each output topic, read
// as a read_committed consumer. Returns false until the topics hold some.
bool PrintSampleRecords(const Config& config) {
  const KafkaTopics& t = config.kafka.topics;
  struct Sample {
    const std::string* topic;
    const char* what;
    size_t count;
    const char* must_contain;
    size_t stride;  // every stride-th match, so samples come from different tuples
    const char* note;
  };
  const Sample samples[] = {
      {&t.anonymized, "anonymized events", 3, "", 97, "the tuple token links one vehicle's events within this release only"},
      {&t.releases, "group record", 1, "\"type\":\"group\"", 1,
       "the values of all its tuples, counterfeits included, shuffled; no value is linked to a token"},
      {&t.releases, "release summary", 1, "\"type\":\"summary\"", 1, "written last: the share is complete"},
      {&t.counts, "DP counts", 2, "", 7, "noisy counts (discrete Laplace)"}};
  std::vector<std::vector<std::string>> found(std::size(samples));
  try {
    for (size_t i = 0; i < std::size(samples); ++i) {
      const Sample& s = samples[i];
      ReadCommitted(config.kafka.bootstrap, config.kafka.properties, config.kafka.consumer_properties, *s.topic, 0, 0,
                    [&, seen = size_t{0}](const CommittedRecord& r) mutable {
                      if (r.value.find(s.must_contain) == std::string_view::npos) return true;
                      if (seen++ % s.stride == 0) found[i].emplace_back(r.value);
                      return found[i].size() < s.count;
                    }, 5000);
      if (found[i].empty() && !(s.topic == &t.counts && !config.dp.enabled)) return false;
    }
  } catch (const std::exception& e) {
    return false;  // not there yet; the next second tries again
  }
  std::printf("---- what consumers read (read_committed, partition 0) ----\n");
  for (size_t i = 0; i < std::size(samples); ++i) {
    if (found[i].empty()) continue;
    std::printf("%s on %s (%s):\n", samples[i].what, samples[i].topic->c_str(), samples[i].note);
    for (const std::string& v : found[i]) std::printf("  %s\n", v.c_str());
  }
  std::printf("-----------------------------------------------------------\n");
  return true;
}

std::string MakeStateDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "vanon-demo-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("cannot create a temporary state dir");
  return tmpl;
}
}  // namespace

int RunDemo(const DemoArgs& args, const std::atomic<bool>& stop) {
  InitJsonLogging(args.verbose ? "info" : "warn");
  MockCluster cluster(1);
  std::string path = args.config.empty() ? DefaultConfigDir() + "/demo.yaml" : args.config;
  std::string state_dir = MakeStateDir();
  Config config = LoadConfig(path, {"kafka.bootstrap=" + cluster.Bootstrap(), "state.dir=" + state_dir,
                                    "http.listen=" + args.http_listen});
  const KafkaTopics& t = config.kafka.topics;
  cluster.CreateTopic(t.input, args.partitions);
  for (const std::string* name : {&t.dlq, &t.anonymized, &t.releases, &t.counts, &t.late}) {
    cluster.CreateTopic(*name, args.partitions);
  }

  std::string key_error;
  std::optional<std::string> key = ReadHmacKey(config, &key_error);
  if (!key) {
    std::printf("demo: %s is not set, using a random key for this run only\n",
                config.security.hmac_key_env.c_str());
    key = RandomHmacKey();
  }

  Service service(config, *key);
  std::atomic<bool> service_stop{false};
  int service_rc = 0;
  std::thread service_thread([&] { service_rc = service.Run(service_stop); });

  LoadgenArgs lg;
  lg.bootstrap = cluster.Bootstrap();
  lg.topic = t.input;
  lg.vehicles = args.vehicles;
  lg.rate = args.rate;
  lg.duration = 0;
  lg.invalid_fraction = args.invalid_fraction;
  lg.churn = 0.1;
  lg.max_message_bytes = static_cast<size_t>(config.input.max_message_bytes);
  LoadgenProgress progress;
  std::atomic<bool> loadgen_stop{false};
  std::string loadgen_error;
  std::thread loadgen_thread([&] {
    try {
      RunLoadgen(lg, loadgen_stop, &progress);
    } catch (const std::exception& e) {
      loadgen_error = e.what();
    }
  });

  std::printf("vanon demo: kafka at %s, %llu vehicles at %.0f events/s, state in %s\n",
              cluster.Bootstrap().c_str(), static_cast<unsigned long long>(args.vehicles), args.rate,
              state_dir.c_str());
  const auto start = std::chrono::steady_clock::now();
  bool printed_url = false;
  bool printed_samples = false;
  while (!stop.load()) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!printed_url && !service.MetricsUrl().empty()) {
      std::printf("metrics: %s  (also /healthz, /readyz)\n", service.MetricsUrl().c_str());
      printed_url = true;
    }
    ServiceStatus s = service.Status();
    std::printf("[%4.0fs] sent %llu | consumed %llu | accepted %llu | rejected %llu | buffered %llu | "
                "partitions %d | %s\n",
                elapsed, static_cast<unsigned long long>(progress.produced.load()),
                static_cast<unsigned long long>(s.consumed), static_cast<unsigned long long>(s.accepted),
                static_cast<unsigned long long>(s.rejected), static_cast<unsigned long long>(s.buffered),
                s.partitions, s.ready ? "ready" : "starting");
    if (s.releases > 0) {
      std::printf("        releases %llu (last %lld: %llu groups, suppression %.3f, EMD %.3f, counterfeits %.3f) | "
                  "events released %llu, suppressed %llu, late %llu | waiting %llu tuples%s\n",
                  static_cast<unsigned long long>(s.releases), static_cast<long long>(s.last_release),
                  static_cast<unsigned long long>(s.last_groups), s.last_suppression_ratio, s.last_emd_max,
                  s.last_counterfeit_ratio, static_cast<unsigned long long>(s.released),
                  static_cast<unsigned long long>(s.suppressed), static_cast<unsigned long long>(s.late),
                  static_cast<unsigned long long>(s.waiting), s.dp_paused ? " | DP counts paused (budget)" : "");
      if (!printed_samples) printed_samples = PrintSampleRecords(config);
    }
    std::fflush(stdout);
    if (!loadgen_error.empty()) break;
    if (args.duration > 0 && elapsed >= args.duration) break;
  }
  loadgen_stop = true;
  loadgen_thread.join();
  service_stop = true;
  service_thread.join();
  if (!args.keep_state) std::filesystem::remove_all(state_dir);
  if (!loadgen_error.empty()) {
    std::fprintf(stderr, "demo: load generator failed: %s\n", loadgen_error.c_str());
    return 1;
  }
  ServiceStatus s = service.Status();
  std::printf("demo stopped: consumed %llu, accepted %llu, rejected %llu (service exit %d)\n",
              static_cast<unsigned long long>(s.consumed), static_cast<unsigned long long>(s.accepted),
              static_cast<unsigned long long>(s.rejected), service_rc);
  return service_rc;
}

}  // namespace vanon
