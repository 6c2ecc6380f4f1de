#include "demo.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "dp_readout.h"
#include "dp_histogram.h"
#include "hmac_key.h"
#include "state_keys.h"
#include "loadgen.h"
#include "vanon/config.h"
#include "vanon/kafka/committed_reader.h"
#include "vanon/kafka/mock_cluster.h"
#include "vanon/service/json_log.h"
#include "vanon/service/qi_resolver.h"
#include "vanon/service/service.h"

namespace vanon::cli {

namespace {

// About the size of one anonymized event record of the demo's config.
constexpr double kEventRecordBytes = 280;

// What a downstream consumer sees: a few records of each output topic, read
// as a read_committed consumer. Returns false until the topics hold some.
bool PrintSampleRecords(const config::Config& config) {
  const config::KafkaTopics& t = config.kafka.topics;
  struct Sample {
    const std::string* topic;
    const char* what;
    size_t count;
    const char* must_contain;
    size_t stride;  // every stride-th match, so samples come from different tuples
    const char* note;
  };
  const Sample samples[] = {
      {&t.anonymized, "anonymized events", 3, "", 97,
       "the tuple token links one vehicle's events within this release only"},
      {&t.releases, "group record", 1, "\"type\":\"group\"", 1,
       "the values of all its tuples, counterfeits included, shuffled; no value is linked to a token"},
      {&t.releases, "release summary", 1, "\"type\":\"summary\"", 1, "written last: the share is complete"}};
  std::vector<std::vector<std::string>> found(std::size(samples));
  try {
    for (size_t i = 0; i < std::size(samples); ++i) {
      const Sample& s = samples[i];
      kafka::ReadCommitted(
          config.kafka.bootstrap, config.kafka.properties, config.kafka.consumer_properties, *s.topic, 0, 0,
          [&, seen = size_t{0}](const kafka::CommittedRecord& r) mutable {
            if (r.value.find(s.must_contain) == std::string_view::npos) return true;
            if (seen++ % s.stride == 0) found[i].emplace_back(r.value);
            return found[i].size() < s.count;
          },
          5000);
      if (found[i].empty()) return false;
    }
  } catch (const std::exception& e) {
    return false;  // not there yet; the next second tries again
  }
  std::printf("---- what consumers read (read_committed, partition 0) ----\n");
  for (size_t i = 0; i < std::size(samples); ++i) {
    std::printf("%s on %s (%s):\n", samples[i].what, samples[i].topic->c_str(), samples[i].note);
    for (const std::string& v : found[i]) std::printf("  %s\n", v.c_str());
  }
  return true;
}

// The DP records of the first share on partition 0 of the counts topic.
std::vector<std::string> FirstShareDpRecords(const config::Config& config) {
  std::vector<std::string> out;
  std::string key;
  kafka::ReadCommitted(
      config.kafka.bootstrap, config.kafka.properties, config.kafka.consumer_properties, config.kafka.topics.counts, 0,
      0,
      [&](const kafka::CommittedRecord& r) {
        if (key.empty()) key = r.key;
        if (r.key != key) return false;
        out.emplace_back(r.value);
        return true;
      },
      5000);
  return out;
}

// One share's DP counts of one query (the first without a time bucket, so
// one line per QI value), each with the standard deviation of its noise,
// and what the budget makes of them.
void PrintDpCounts(const config::Config& config, uint64_t vehicles) {
  if (!config.dp.enabled) return;
  std::vector<std::string> records;
  try {
    records = FirstShareDpRecords(config);
  } catch (const std::exception& e) {
    std::printf("DP counts: not read yet (%s)\n", e.what());
  }
  std::vector<DpCountReadout> counts;
  try {
    for (const std::string& r : records) {
      if (std::optional<DpCountReadout> c = ParseDpCount(r)) counts.push_back(*c);
    }
  } catch (const std::invalid_argument& e) {
    std::printf("DP counts: a record on %s does not read: %s\n", config.kafka.topics.counts.c_str(), e.what());
  }
  if (!counts.empty()) {
    std::printf(
        "DP counts on %s (noisy; with dp.window_seconds one per window, with dp.aggregation.topic one "
        "global count per cell):\n  %s\n",
        config.kafka.topics.counts.c_str(), records.front().c_str());
    auto shown = std::find_if(counts.begin(), counts.end(), [](const DpCountReadout& c) {
      return c.std && c.cell.find("time_bucket=") == std::string::npos;
    });
    if (shown == counts.end()) shown = counts.begin();
    const std::string query = shown->query;
    size_t totals = 0;
    for (const DpCountReadout& c : counts) {
      if (c.query != query) continue;
      if (c.std || !shown->std) {
        std::printf("  %s\n", Describe(c).c_str());
      } else {
        ++totals;
      }
    }
    if (totals > 0) {
      std::printf("  (and %zu running totals of %s: their noise depends on how many draws they sum, docs/dp.md)\n",
                  totals, query.c_str());
    }
  }
  std::printf("%s\n", DescribeDpBudgetForDemo(config, vehicles).c_str());
}

// Commands that read the same topics from outside the demo.
void PrintConsumerCommands(const config::Config& config, const DemoArgs& args) {
  const std::filesystem::path repo = std::filesystem::path(DefaultConfigDir()).parent_path();
  std::filesystem::path report = repo / "clients" / "python" / "examples" / "report.py";
  if (!std::filesystem::exists(report)) report = "clients/python/examples/report.py";
  const std::string config_path = args.config.empty() ? DefaultConfigDir() + "/demo.yaml" : args.config;
  std::printf(
      "report (PNG of releases, speeds and DP counts; while the demo runs):\n"
      "  /usr/bin/python3 %s --bootstrap %s --releases 6 --out vanon-report.png\n",
      report.c_str(), config.kafka.bootstrap.c_str());
  // The embedded cluster (librdkafka's mock) keeps about 5 MB per partition:
  // a reader gets a release whole only while a partition's share of it fits.
  const double share_mb =
      args.rate * static_cast<double>(config.privacy.epoch.length_seconds) / args.partitions * kEventRecordBytes / 1e6;
  if (share_mb > 2.2) {
    std::printf(
        "  note: at %.0f events/s a partition's share of a release is about %.1f MB of events, too much for the "
        "embedded Kafka's 5 MB per partition to keep until a reader has it all; for the report run the demo with "
        "--vehicles 150 --rate 1500 (the same events per vehicle)\n",
        args.rate, share_mb);
  }
  std::printf(
      "complete releases as an operator sees them:\n"
      "  vanon tail --config %s --set kafka.bootstrap=%s --from-beginning\n"
      "-----------------------------------------------------------\n",
      config_path.c_str(), config.kafka.bootstrap.c_str());
}

// True when nothing listens on `listen` ("host:port", IPv4) right now. A
// probe, not a reservation: it only decides whether to ask for a free port.
bool PortIsFree(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos) return true;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  if (inet_pton(AF_INET, listen.substr(0, colon).c_str(), &addr.sin_addr) != 1) return true;
  addr.sin_port = htons(static_cast<uint16_t>(std::atoi(listen.c_str() + colon + 1)));
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return true;
  const bool free = bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return free;
}

// A port the kernel hands out as free on 127.0.0.1 (config validation
// refuses port 0, so the demo asks for one itself). Another process could
// take it before the service binds; the service then fails with one line.
int FreeLoopbackPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("demo: cannot open a socket to find a free port");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  const bool ok = bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0 &&
                  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
  close(fd);
  if (!ok) throw std::runtime_error("demo: no free port on 127.0.0.1");
  return ntohs(addr.sin_port);
}

std::string MakeStateDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "vanon-demo-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("cannot create a temporary state dir");
  return tmpl;
}

// The demo's config over the embedded cluster, with its topics created.
config::Config DemoConfig(const DemoArgs& args, kafka::MockCluster& cluster, const std::string& state_dir) {
  std::string path = args.config.empty() ? DefaultConfigDir() + "/demo.yaml" : args.config;
  // The demo is often started next to another vanon: with the default
  // address taken it takes a free port (printed below) rather than failing.
  std::string listen = args.http_listen;
  if (!args.http_explicit && !PortIsFree(listen)) {
    std::printf("demo: %s is in use, serving metrics on a free port instead\n", listen.c_str());
    listen = "127.0.0.1:" + std::to_string(FreeLoopbackPort());
  }
  std::vector<std::string> overrides = args.overrides;
  for (std::string o : {"kafka.bootstrap=" + cluster.Bootstrap(), "state.dir=" + state_dir, "http.listen=" + listen}) {
    overrides.push_back(std::move(o));
  }
  config::Config config = config::LoadConfig(path, overrides, &service::QiResolver::Check);
  const config::KafkaTopics& t = config.kafka.topics;
  cluster.CreateTopic(t.input, args.partitions);
  if (config.state.changelog.enabled) cluster.CreateTopic(config.state.changelog.topic, args.partitions);
  for (const std::string* name : {&t.dlq, &t.anonymized, &t.releases, &t.counts, &t.late}) {
    cluster.CreateTopic(*name, args.partitions);
  }
  // Global DP counts: the partitions' exact window counts (internal topic).
  if (!config.dp.aggregation.topic.empty()) cluster.CreateTopic(config.dp.aggregation.topic, 1);
  return config;
}

LoadgenArgs DemoLoadgen(const DemoArgs& args, const std::string& bootstrap, const config::Config& config) {
  LoadgenArgs lg;
  lg.bootstrap = bootstrap;
  lg.topic = config.kafka.topics.input;
  lg.vehicles = args.vehicles;
  lg.rate = args.rate;
  lg.duration = 0;
  lg.invalid_fraction = args.invalid_fraction;
  lg.churn = 0.1;
  lg.max_message_bytes = static_cast<size_t>(config.input.max_message_bytes);
  return lg;
}

// The configured key when set; the demo must also run without one.
std::string DemoHmacKey(const config::Config& config) {
  std::string error;
  if (std::optional<std::string> key = ReadHmacKey(config, &error)) return *key;
  std::printf("demo: %s is not set, using a random key for this run only\n", config.security.hmac_key_env.c_str());
  return RandomHmacKey();
}

// The configured state keys when set, else a random ring for this run.
seal::Keyring DemoStateKeys(const config::Config& config) {
  std::string error;
  if (std::optional<seal::Keyring> keys = ReadStateKeys(config, &error)) return *keys;
  if (!error.empty() && std::getenv(config.security.state_keys_env.c_str()) != nullptr) {
    throw std::runtime_error(error);  // set but malformed: say so rather than ignore it
  }
  std::printf("demo: %s is not set, sealing internal topics with a random key for this run only\n",
              config.security.state_keys_env.c_str());
  return seal::Keyring::Random("demo");
}

// The one (or two, once releases run) status lines a second.
void PrintStatus(double elapsed, uint64_t sent, const service::ServiceStatus& s) {
  std::printf(
      "[%4.0fs] sent %llu | consumed %llu | accepted %llu | rejected %llu | buffered %llu | "
      "partitions %d | %s\n",
      elapsed, static_cast<unsigned long long>(sent), static_cast<unsigned long long>(s.consumed),
      static_cast<unsigned long long>(s.accepted), static_cast<unsigned long long>(s.rejected),
      static_cast<unsigned long long>(s.buffered), s.partitions, s.ready ? "ready" : "starting");
  if (s.releases == 0) return;
  std::printf(
      "        releases %llu (last %lld: %llu groups, suppression %.3f, EMD %.3f, counterfeits %.3f) | "
      "events released %llu, suppressed %llu, late %llu | waiting %llu tuples%s\n",
      static_cast<unsigned long long>(s.releases), static_cast<long long>(s.last_release),
      static_cast<unsigned long long>(s.last_groups), s.last_suppression_ratio, s.last_emd_max,
      s.last_counterfeit_ratio, static_cast<unsigned long long>(s.released),
      static_cast<unsigned long long>(s.suppressed), static_cast<unsigned long long>(s.late),
      static_cast<unsigned long long>(s.waiting), s.dp_paused ? " | DP counts paused (budget)" : "");
}

}  // namespace

int RunDemo(const DemoArgs& args, const std::atomic<bool>& stop) {
  service::InitJsonLogging(args.verbose ? "info" : "warn");
  kafka::MockCluster cluster(1);
  std::string state_dir = MakeStateDir();
  config::Config config = DemoConfig(args, cluster, state_dir);

  service::Service service(config, DemoHmacKey(config), DemoStateKeys(config));
  std::atomic<bool> service_stop{false};
  std::atomic<bool> service_done{false};
  int service_rc = 0;
  std::string service_error;  // read after join only
  // A start-up error (address in use, state locked) ends the demo with one
  // line, as `vanon run` does, instead of escaping the thread (std::terminate).
  std::thread service_thread([&] {
    try {
      service_rc = service.Run(service_stop);
    } catch (const std::exception& e) {
      service_error = e.what();
      service_rc = 1;
    }
    service_done = true;
  });

  LoadgenArgs lg = DemoLoadgen(args, cluster.Bootstrap(), config);
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

  std::printf("vanon demo: kafka at %s, %llu vehicles at %.0f events/s, state in %s\n", cluster.Bootstrap().c_str(),
              static_cast<unsigned long long>(args.vehicles), args.rate, state_dir.c_str());
  const auto start = std::chrono::steady_clock::now();
  bool printed_url = false;
  bool printed_samples = false;
  bool printed_histogram = false;
  while (!stop.load()) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!printed_url && !service.MetricsUrl().empty()) {
      std::printf("metrics: %s  (also /healthz, /readyz)\n", service.MetricsUrl().c_str());
      printed_url = true;
    }
    const service::ServiceStatus s = service.Status();
    PrintStatus(elapsed, progress.produced.load(), s);
    if (s.releases > 0 && !printed_samples && PrintSampleRecords(config)) {
      printed_samples = true;
      PrintDpCounts(config, args.vehicles);
      PrintConsumerCommands(config, args);
    }
    // A few releases in, when the fleet is fully on the road.
    if (printed_samples && !printed_histogram && s.releases >= 6) printed_histogram = PrintDpHistogram(config);
    std::fflush(stdout);
    if (!loadgen_error.empty() || service_done.load()) break;
    if (args.duration > 0 && elapsed >= args.duration) break;
  }
  loadgen_stop = true;
  loadgen_thread.join();
  service_stop = true;
  service_thread.join();
  if (!args.keep_state) std::filesystem::remove_all(state_dir);
  if (!service_error.empty()) {
    std::fprintf(stderr, "vanon demo: %s\n", service_error.c_str());
    return 1;
  }
  if (!loadgen_error.empty()) {
    std::fprintf(stderr, "demo: load generator failed: %s\n", loadgen_error.c_str());
    return 1;
  }
  service::ServiceStatus s = service.Status();
  std::printf("demo stopped: consumed %llu, accepted %llu, rejected %llu (service exit %d)\n",
              static_cast<unsigned long long>(s.consumed), static_cast<unsigned long long>(s.accepted),
              static_cast<unsigned long long>(s.rejected), service_rc);
  return service_rc;
}

}  // namespace vanon::cli
