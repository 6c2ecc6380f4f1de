// The real binaries as an operator runs them: vanon-kafka, `vanon run`, and
// the Debian prometheus server scraping vanon on loopback.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "fleet_feed.h"
#include "test_support.h"
#include "topic_reader.h"
#include "vanon/config.h"
#include "service/ingest/ingest_pipeline.h"
#include "vanon/state/state_store.h"

namespace vanon::service {
namespace {

using testing::MetricValue;
using testing::Subprocess;
using testing::TempDir;

const std::vector<std::string> kKeyEnv = {"VANON_HMAC_KEY=process-test-hmac-key-0123456789", testing::kStateKeysEnv};

std::unique_ptr<Subprocess> StartKafka(std::string* bootstrap) {
  std::vector<std::string> argv = {VANON_KAFKA_BIN, "--brokers", "1"};
  for (const std::string& a : testing::ServiceTopicArgs(2, 2)) argv.push_back(a);
  auto k = std::make_unique<Subprocess>(argv);
  *bootstrap = k->FirstLine(20);
  return k;
}

std::unique_ptr<Subprocess> StartVanon(const std::string& bootstrap, const std::string& state, int http_port,
                                       const std::vector<std::string>& extra_args = {},
                                       const std::vector<std::string>& extra_env = {}) {
  std::vector<std::string> argv = {VANON_BIN,  "run",
                                   "--config", std::string(VANON_SOURCE_DIR) + "/config/demo.yaml",
                                   "--set",    "kafka.bootstrap=" + bootstrap,
                                   "--set",    "input.max_message_bytes=16384",
                                   "--set",    "state.dir=" + state,
                                   "--set",    "http.listen=127.0.0.1:" + std::to_string(http_port)};
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  std::vector<std::string> env = kKeyEnv;
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  return std::make_unique<Subprocess>(argv, env);
}

// The status and body of a GET, or {-1, ""} without an answer.
// Used only by the fault-point test (VANON_FAULT_POINTS).
[[maybe_unused]] std::pair<int, std::string> Status(int port, const std::string& path) {
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(1);
  auto r = c.Get(path.c_str());
  if (!r) return {-1, ""};
  return {r->status, r->body};
}

std::string Get(int port, const std::string& path) {
  httplib::Client c("127.0.0.1", port);
  c.set_connection_timeout(1);
  auto r = c.Get(path.c_str());
  return r && r->status == 200 ? r->body : "";
}

TEST(ProcessIntegration, MissingHmacKeyIsAStartupError) {
  Subprocess p({VANON_BIN, "run", "--config", std::string(VANON_SOURCE_DIR) + "/config/demo.yaml", "--set",
                "security.hmac_key_env=VANON_TEST_UNSET_KEY_VARIABLE"});
  EXPECT_EQ(p.Wait(20), 2);
}

TEST(ProcessIntegration, ValidateConfigNamesFileLineAndKeyAndExitsTwo) {
  TempDir dir;
  std::string good = testing::ReadFile(std::string(VANON_SOURCE_DIR) + "/config/demo.yaml");
  size_t at = good.find("  m: 5");
  ASSERT_NE(at, std::string::npos);
  std::string bad = good.substr(0, at) + "  m: 1" + good.substr(at + 6);
  int line = 1 + static_cast<int>(std::count(bad.begin(), bad.begin() + static_cast<long>(at), '\n'));
  // Relative paths in the config resolve against its directory: copy what it names.
  for (const char* sub : {"vehicle", "hierarchies"}) {
    std::filesystem::copy(std::string(VANON_SOURCE_DIR) + "/config/" + sub, dir.path() + "/" + sub,
                          std::filesystem::copy_options::recursive);
  }
  std::string path = dir.path() + "/invalid-demo.yaml";
  testing::WriteFile(path, bad);
  Subprocess p({VANON_BIN, "validate-config", path}, {}, true);
  int rc = p.Wait(20);
  std::string out = p.Output();
  EXPECT_EQ(rc, 2);
  EXPECT_NE(out.find(path + ":" + std::to_string(line) + ": privacy.m:"), std::string::npos) << out;

  Subprocess ok({VANON_BIN, "validate-config", std::string(VANON_SOURCE_DIR) + "/config/demo.yaml"});
  EXPECT_EQ(ok.Wait(20), 0);
}

TEST(ProcessIntegration, SigtermMidStreamThenRestartCountsEachEventOnce) {
  std::string bootstrap;
  auto kafka = StartKafka(&bootstrap);
  ASSERT_FALSE(bootstrap.empty());
  TempDir state;
  int port = testing::FreePort();

  testing::FeedOptions fo;
  fo.messages = 20000;
  fo.wall_rate = 4000;  // about 5 s of production, so the stop lands mid-stream
  testing::FeedSummary feed;
  std::thread producer([&] { feed = testing::ProduceFleet(bootstrap, "vehicle.events.raw", fo); });

  auto first = StartVanon(bootstrap, state.path(), port);
  ASSERT_TRUE(
      testing::WaitFor(30, [&] { return MetricValue(Get(port, "/metrics"), "vanon_events_consumed_total") > 2000; }));
  first->Signal(SIGTERM);
  EXPECT_EQ(first->Wait(60), 0);
  uint64_t consumed_first = 0;
  {
    auto store = state::StateStore::Open(state.path());
    for (int p = 0; p < 2; ++p) consumed_first += store->LoadProgress(p).consumed;
  }
  producer.join();
  EXPECT_GT(consumed_first, 0u);
  EXPECT_LT(consumed_first, feed.total) << "the stop did not land mid-stream";

  auto second = StartVanon(bootstrap, state.path(), port);
  ASSERT_TRUE(testing::WaitFor(60, [&] {
    return MetricValue(Get(port, "/metrics"), "vanon_events_consumed_total") >=
           static_cast<double>(feed.total - consumed_first);
  }));
  second->Signal(SIGTERM);
  EXPECT_EQ(second->Wait(60), 0);

  ASSERT_EQ(testing::SumLowWatermarks(bootstrap, "vehicle.events.raw", 2), 0)
      << "the mock cluster truncated the input; the counts below would be meaningless";
  // Open epochs live in memory only: what state holds of events belongs to
  // closed epochs (tuples still waiting own them).
  auto expect_no_open_epoch_events = [&](state::StateStore& store, const config::EpochConfig& epoch, int partitions) {
    size_t open = 0;
    for (int p = 0; p < partitions; ++p) {
      const std::optional<int64_t> first_open = StoredClockForReplay(store, epoch, p).first_open_epoch();
      if (!first_open) continue;
      store.ScanEvents(p, [&](int64_t ts, int64_t, std::string_view) {
        open += ts >= epoch.length_seconds * 1000 * *first_open;
        return true;
      });
    }
    EXPECT_EQ(open, 0u) << "events of open epochs in state";
  };
  auto store = state::StateStore::Open(state.path());
  uint64_t consumed = 0, accepted = 0, rejected = 0, done = 0;
  for (int p = 0; p < 2; ++p) {
    state::PartitionProgress pr = store->LoadProgress(p);
    consumed += pr.consumed;
    accepted += pr.accepted;
    rejected += pr.rejected_total();
    done += pr.late + pr.released + pr.suppressed;
  }
  EXPECT_EQ(consumed, feed.total);
  EXPECT_EQ(accepted, feed.total - feed.invalid);
  EXPECT_EQ(rejected, feed.invalid);
  // Both stops stored their counters (IngestPipeline::Checkpoint), not the
  // events: the second process read the first one's open epochs again and
  // counted each event once (above). Each accepted event is still buffered
  // (in memory) or counted as late, released or suppressed.
  EXPECT_LE(done, accepted);
  expect_no_open_epoch_events(
      *store, config::LoadConfig(std::string(VANON_SOURCE_DIR) + "/config/demo.yaml", {}).privacy.epoch, 2);
}

TEST(ProcessIntegration, PrometheusScrapesVanonAndPromtoolAcceptsTheExposition) {
  std::string bootstrap;
  auto kafka = StartKafka(&bootstrap);
  ASSERT_FALSE(bootstrap.empty());
  TempDir state, prom_dir;
  int port = testing::FreePort();
  auto vanon = StartVanon(bootstrap, state.path(), port);

  testing::FeedOptions fo;
  fo.messages = 777;
  fo.invalid_fraction = 0.1;
  testing::FeedSummary feed = testing::ProduceFleet(bootstrap, "vehicle.events.raw", fo);
  ASSERT_TRUE(testing::WaitFor(60,
                               [&] {
                                 return MetricValue(Get(port, "/metrics"), "vanon_events_consumed_total") ==
                                        static_cast<double>(feed.total);
                               }))
      << "consumed " << MetricValue(Get(port, "/metrics"), "vanon_events_consumed_total") << " of " << feed.total;

  // After a release every family the service declares has samples (histograms
  // included), so the scrape is the whole exported surface.
  ASSERT_TRUE(testing::WaitFor(60, [&] { return MetricValue(Get(port, "/metrics"), "vanon_releases_total") >= 1; }))
      << "no release within 60 s";
  std::string exposition = Get(port, "/metrics");
  const std::string scrape = prom_dir.path() + "/scrape.txt";
  testing::WriteFile(scrape, exposition);
  std::string cmd = "promtool check metrics < " + scrape + " > " + prom_dir.path() + "/promtool.out 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << testing::ReadFile(prom_dir.path() + "/promtool.out");
  // Every metric the dashboard and the alert rules use is exported.
  cmd = "python3 " + std::string(VANON_SOURCE_DIR) + "/tests/ops/check_metric_names.py " + scrape + " > " +
        prom_dir.path() + "/names.out 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << testing::ReadFile(prom_dir.path() + "/names.out");

  int prom_port = testing::FreePort();
  testing::WriteFile(prom_dir.path() + "/prometheus.yml",
                     "global: {scrape_interval: 1s}\n"
                     "scrape_configs:\n"
                     "  - job_name: vanon\n"
                     "    static_configs: [{targets: ['127.0.0.1:" +
                         std::to_string(port) + "']}]\n");
  Subprocess prom({"/usr/bin/prometheus", "--config.file=" + prom_dir.path() + "/prometheus.yml",
                   "--storage.tsdb.path=" + prom_dir.path() + "/data",
                   "--web.listen-address=127.0.0.1:" + std::to_string(prom_port)});
  std::string answer;
  bool got = testing::WaitFor(60, [&] {
    answer = Get(prom_port, "/api/v1/query?query=vanon_events_consumed_total");
    return answer.find("\"" + std::to_string(feed.total) + "\"") != std::string::npos;
  });
  EXPECT_TRUE(got) << "prometheus answered: " << answer;
  vanon->Signal(SIGTERM);
  EXPECT_EQ(vanon->Wait(60), 0);
}

#ifdef VANON_FAULT_POINTS  // VANON_FAULT_POINT=...:hang (tests/service/CMakeLists.txt)
// The release thread runs apart from the consuming loop: if it hangs (here:
// inside a transaction, by fault injection), ingestion's heartbeat goes on,
// and only the batch's age can make /healthz fail.
TEST(ProcessIntegration, HealthzFailsWhileAReleaseBatchHangs) {
  std::string bootstrap;
  auto kafka = StartKafka(&bootstrap);
  ASSERT_FALSE(bootstrap.empty());
  TempDir state;
  int port = testing::FreePort();
  auto vanon = StartVanon(bootstrap, state.path(), port,
                          {"--set", "http.release_stall_seconds=3", "--set", "privacy.epoch.length_seconds=2", "--set",
                           "privacy.epoch.allowed_lateness_seconds=1", "--set", "privacy.epoch.idle_timeout_seconds=2"},
                          {"VANON_FAULT_POINT=release.before_commit:hang"});
  ASSERT_TRUE(testing::WaitFor(30, [&] { return Status(port, "/healthz").first == 200; })) << "never healthy";

  testing::FeedOptions fo;
  fo.messages = 2000;
  testing::ProduceFleet(bootstrap, "vehicle.events.raw", fo);
  std::pair<int, std::string> health;
  ASSERT_TRUE(testing::WaitFor(60,
                               [&] {
                                 health = Status(port, "/healthz");
                                 return health.first == 503;
                               }))
      << "still " << health.first << " " << health.second;
  EXPECT_NE(health.second.find("release batch open for"), std::string::npos) << health.second;
  // Ingestion itself is alive: the loop turns, so it is not the heartbeat.
  EXPECT_EQ(health.second.find("main loop stalled"), std::string::npos) << health.second;
}
#endif  // VANON_FAULT_POINTS

}  // namespace
}  // namespace vanon::service
