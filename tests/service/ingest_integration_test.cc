// The service against a real Kafka protocol peer (librdkafka's mock cluster,
// in-process): exact accounting, DLQ reasons, and no raw VIN on disk.
#include <gtest/gtest.h>
#include <librdkafka/rdkafkacpp.h>

#include <filesystem>
#include <functional>

#include "fleet_feed.h"
#include "run_service.h"
#include "test_support.h"
#include "vanon/config.h"
#include "vanon/ingest/buffered_event.h"
#include "vanon/kafka/mock_cluster.h"
#include "service/ingest/ingest_pipeline.h"
#include "vanon/service/service.h"
#include "vanon/state/state_store.h"

namespace vanon::service {
namespace {

constexpr const char* kKey = "integration-test-hmac-key-0123456789";

struct DlqRecord {
  std::string value;
  std::map<std::string, std::string> headers;
};

std::vector<DlqRecord> ReadAll(const std::string& bootstrap, const std::string& topic, size_t want) {
  std::string err;
  std::unique_ptr<RdKafka::Conf> conf(RdKafka::Conf::create(RdKafka::Conf::CONF_GLOBAL));
  conf->set("bootstrap.servers", bootstrap, err);
  conf->set("group.id", "dlq-reader", err);
  conf->set("auto.offset.reset", "earliest", err);
  std::unique_ptr<RdKafka::KafkaConsumer> c(RdKafka::KafkaConsumer::create(conf.get(), err));
  c->subscribe({topic});
  std::vector<DlqRecord> out;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (out.size() < want && std::chrono::steady_clock::now() < deadline) {
    std::unique_ptr<RdKafka::Message> m(c->consume(200));
    if (m->err() != RdKafka::ERR_NO_ERROR) continue;
    DlqRecord r;
    r.value.assign(static_cast<const char*>(m->payload()), m->len());
    if (RdKafka::Headers* h = m->headers()) {
      for (const auto& hd : h->get_all()) r.headers[hd.key()] = std::string(hd.value_string(), hd.value_size());
    }
    out.push_back(std::move(r));
  }
  // Anything beyond `want` would be a duplicate: give it a moment to show up.
  for (int i = 0; i < 5; ++i) {
    std::unique_ptr<RdKafka::Message> m(c->consume(200));
    if (m->err() == RdKafka::ERR_NO_ERROR) out.push_back({});
  }
  c->close();
  return out;
}

// demo.yaml on the mock cluster, with the input and the changelog topic in
// `partitions` partitions and every output topic in one.
config::Config IngestConfig(kafka::MockCluster& cluster, const testing::TempDir& state, int port, int partitions) {
  config::Config config =
      config::LoadConfig(std::string(VANON_SOURCE_DIR) + "/config/demo.yaml",
                         {"kafka.bootstrap=" + cluster.Bootstrap(), "state.dir=" + state.path(),
                          "input.max_message_bytes=16384", "http.listen=127.0.0.1:" + std::to_string(port)});
  cluster.CreateTopic(config.kafka.topics.input, partitions);
  cluster.CreateTopic(config.state.changelog.topic, partitions);
  for (const std::string* t : {&config.kafka.topics.dlq, &config.kafka.topics.late, &config.kafka.topics.anonymized,
                               &config.kafka.topics.releases, &config.kafka.topics.counts}) {
    cluster.CreateTopic(*t, 1);
  }
  return config;
}

bool FileContains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

TEST(IngestIntegration, ExactAccountingDlqReasonsAndNoRawVinOnDisk) {
  kafka::MockCluster cluster(1);
  testing::TempDir state;
  config::Config config = IngestConfig(cluster, state, testing::FreePort(), 3);

  testing::FeedOptions fo;
  fo.messages = 20000;
  fo.invalid_fraction = 0.05;
  testing::FeedSummary feed = testing::ProduceFleet(cluster.Bootstrap(), config.kafka.topics.input, fo);
  ASSERT_EQ(feed.total, 20000u);
  ASSERT_GT(feed.invalid, 800u);  // about 5%, from the generator's own count
  ASSERT_EQ(feed.invalid_by_reason.size(), 8u) << "every reason must be exercised";

  Service service(config, kKey, testing::TestStateKeys());
  const testing::ServiceRun run =
      testing::RunServiceUntil(service, 120, [&] { return service.Status().consumed >= feed.total; });
  ASSERT_TRUE(run.done) << "consumed only " << service.Status().consumed;
  EXPECT_EQ(run.rc, 0);

  ASSERT_EQ(testing::SumLowWatermarks(cluster.Bootstrap(), config.kafka.topics.input, 3), 0)
      << "the mock cluster truncated the input; the counts below would be meaningless";
  ServiceStatus s = service.Status();
  EXPECT_EQ(s.consumed, feed.total);
  EXPECT_EQ(s.rejected, feed.invalid);
  EXPECT_EQ(s.accepted, feed.total - feed.invalid);

  // Every malformed message is in the DLQ once, with the reason the generator meant.
  std::vector<DlqRecord> dlq = ReadAll(cluster.Bootstrap(), config.kafka.topics.dlq, feed.invalid);
  ASSERT_EQ(dlq.size(), feed.invalid);
  auto expected = feed.rejected_values;
  for (const DlqRecord& r : dlq) {
    ASSERT_TRUE(r.headers.count("vanon.reason"));
    EXPECT_TRUE(r.headers.count("vanon.source.offset"));
    EXPECT_EQ(r.headers.at("vanon.source.topic"), config.kafka.topics.input);
    auto it = expected.find({r.value, r.headers.at("vanon.reason")});
    ASSERT_NE(it, expected.end()) << "unexpected DLQ record with reason " << r.headers.at("vanon.reason") << " detail "
                                  << (r.headers.count("vanon.detail") ? r.headers.at("vanon.detail") : "");
    expected.erase(it);
    for (const std::string& vin : feed.vins) {
      ASSERT_FALSE(FileContains(r.headers.at("vanon.detail"), vin)) << "VIN in DLQ detail";
    }
  }
  EXPECT_TRUE(expected.empty());

  // The stop stored the counters (IngestPipeline::Checkpoint) but no event of
  // an open epoch; and no raw VIN anywhere on disk.
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
  {
    auto store = state::StateStore::Open(state.path());
    uint64_t consumed = 0, accepted = 0, done = 0;
    for (int p = 0; p < 3; ++p) {
      state::PartitionProgress pr = store->LoadProgress(p);
      consumed += pr.consumed;
      accepted += pr.accepted;
      done += pr.late + pr.released + pr.suppressed;
    }
    EXPECT_EQ(consumed, feed.total);
    EXPECT_EQ(accepted, feed.total - feed.invalid);
    EXPECT_EQ(done + s.buffered, accepted);
    expect_no_open_epoch_events(*store, config.privacy.epoch, 3);
  }
  std::string all_bytes;
  for (const auto& e : std::filesystem::recursive_directory_iterator(state.path())) {
    if (e.is_regular_file()) all_bytes += testing::ReadFile(e.path().string());
  }
  ASSERT_GT(all_bytes.size(), 100000u);
  // Positive control: a value that is stored must be findable by this search.
  EXPECT_TRUE(FileContains(all_bytes, "consumed="));  // the progress record's text
  size_t found = 0;
  for (const std::string& vin : feed.vins) found += FileContains(all_bytes, vin) ? 1 : 0;
  EXPECT_EQ(found, 0u) << "raw VINs found in the state directory";
}

// Input the broker deletes (retention) before vanon reads it is
// counted and logged, not skipped silently. vanon stops with its resume
// offset stored; more than the mock's ~5 MB per partition arrives; the restarted
// service finds its position deleted, counts exactly the deleted offsets and
// goes on from the earliest one left. (With auto.offset.reset=earliest, as
// before, nothing counts them.)
TEST(IngestIntegration, InputDeletedBeforeItIsReadIsCountedAsLost) {
  kafka::MockCluster cluster(1);
  testing::TempDir state;
  const int port = testing::FreePort();
  config::Config config = IngestConfig(cluster, state, port, 1);
  testing::FeedOptions fo;
  fo.messages = 2000;
  fo.invalid_fraction = 0;
  const uint64_t first = testing::ProduceFleet(cluster.Bootstrap(), config.kafka.topics.input, fo).total;
  auto run_until = [&](const std::function<bool(Service&)>& done) {
    Service service(config, kKey, testing::TestStateKeys());
    double lost = -1;
    const testing::ServiceRun run = testing::RunServiceUntil(
        service, 120, [&] { return done(service); },
        [&] { lost = testing::ScrapeMetric(port, "vanon_input_lost_to_retention_total"); });
    EXPECT_EQ(run.rc, 0);
    EXPECT_TRUE(run.done) << "consumed " << service.Status().consumed;
    return lost;
  };
  EXPECT_EQ(run_until([&](Service& s) { return s.Status().consumed >= first; }), 0);
  // The stored position is the resume offset: the oldest event still
  // buffered in an open epoch (docs/state.md, "Crash and replay"). Those
  // events were only in memory, so deleted input from there on is lost.
  int64_t resume = 0;
  {
    auto store = state::StateStore::Open(state.path());
    resume = store->LoadProgress(0).next_offset;
  }
  ASSERT_GE(resume, 0);
  ASSERT_LE(resume, static_cast<int64_t>(first));

  fo.messages = 40000;  // about 12 MB: the mock keeps about 5 MB
  fo.seed = 8;
  fo.start_ms = 0;
  const uint64_t second = testing::ProduceFleet(cluster.Bootstrap(), config.kafka.topics.input, fo).total;
  const int64_t low = testing::SumLowWatermarks(cluster.Bootstrap(), config.kafka.topics.input, 1);
  ASSERT_GT(low, static_cast<int64_t>(first)) << "the mock kept everything; produce more";
  const uint64_t left = first + second - static_cast<uint64_t>(low);
  const double lost = run_until([&](Service& s) {
    return s.Status().consumed >= first + left &&
           testing::ScrapeMetric(port, "vanon_input_lost_to_retention_total") > 0;
  });
  EXPECT_EQ(lost, static_cast<double>(low - resume));
}

// Lag is visible per input partition, labelled by partition number
// only: one series per assigned partition, each at 0 once everything
// produced has been consumed (no timing assumed: waited for).
TEST(IngestIntegration, ConsumerLagPerPartition) {
  kafka::MockCluster cluster(1);
  testing::TempDir state;
  const int port = testing::FreePort();
  config::Config config = IngestConfig(cluster, state, port, 3);
  testing::FeedOptions fo;
  fo.messages = 3000;
  fo.invalid_fraction = 0;
  const uint64_t total = testing::ProduceFleet(cluster.Bootstrap(), config.kafka.topics.input, fo).total;
  auto lag = [&](int partition) {
    return testing::ScrapeMetric(
        port, "vanon_consumer_partition_lag_messages{partition=\"" + std::to_string(partition) + "\"}");
  };
  Service service(config, kKey, testing::TestStateKeys());
  double absent = 0;
  const testing::ServiceRun run = testing::RunServiceUntil(
      service, 120, [&] { return service.Status().consumed >= total && lag(0) == 0 && lag(1) == 0 && lag(2) == 0; },
      [&] { absent = lag(3); });
  EXPECT_EQ(run.rc, 0);
  ASSERT_TRUE(run.done) << "consumed " << service.Status().consumed << " of " << total << "; lag " << lag(0) << " "
                        << lag(1) << " " << lag(2);
  EXPECT_EQ(absent, -1) << "a series for a partition the topic does not have";
}

}  // namespace
}  // namespace vanon::service
