// Inputs that used to pass silently and publish nothing or the wrong thing:
// a registry-sourced sensitive value that was never read, and
// events without a Kafka key. The service runs in-process on the mock
// cluster with one input partition.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "test_support.h"
#include "topic_reader.h"
#include "vanon/config.h"
#include "vanon/kafka/mock_cluster.h"
#include "vanon/kafka/producer.h"
#include "service/support/fault_injection.h"
#include "vanon/service/service.h"
#include "vanon/state/state_store.h"

namespace vanon::service {
namespace {

constexpr int64_t kEpochMs = 10000;
constexpr int64_t kBase = 1700000000000;  // an epoch boundary
constexpr int kVehicles = 40;
const char* const kArtists[] = {"Adele", "Bach", "Coltrane", "Dylan"};

std::string Vin(int i) {
  std::string n = std::to_string(i);
  return "WDB" + std::string(14 - n.size(), '0') + n;  // 17 valid VIN characters
}

class FailClosedTest : public ::testing::Test {
 protected:
  // The QI (engine) and the sensitive value (artist) both come from a
  // registry CSV: the artist is a static attribute of the vehicle.
  void Start(bool registry_sensitive, kafka::MockCluster* cluster = nullptr, int input_partitions = 1) {
    if (cluster == nullptr) cluster = &cluster_;
    bootstrap_ = cluster->Bootstrap();
    port_ = testing::FreePort();
    const std::string dir = dir_.path();
    {
      std::ofstream csv(dir + "/registry.csv");
      csv << "vin,engine,artist\n";
      const char* engines[] = {"EV", "Gas", "Diesel", "Hybrid"};
      for (int i = 0; i < kVehicles; ++i) csv << Vin(i) << "," << engines[i % 4] << "," << kArtists[i % 4] << "\n";
    }
    {
      std::ofstream yaml(dir + "/vanon.yaml");
      yaml << "kafka: {bootstrap: \"" << bootstrap_
           << "\", group_id: fail-closed, transactional_id_prefix: fail-closed}\n"
           << "vehicle:\n  source: registry\n  registry: {file: registry.csv, key_column: vin}\n"
           << "quasi_identifiers:\n  - {name: engine, hierarchy: " << VANON_SOURCE_DIR
           << "/config/hierarchies/engine.csv}\n"
           << "sensitive:\n"
           << (registry_sensitive ? "  aggregator: registry\n  registry_column: artist\n"
                                  : "  field: payload.artist\n  aggregator: mode\n  missing_value: Radio\n")
           << "payload: {default: drop}\n"
           << "privacy:\n  model: m_invariance\n  m: 2\n  max_delay_epochs: 0\n"
           << "  epoch: {length_seconds: 10, allowed_lateness_seconds: 2, idle_timeout_seconds: 3600}\n"
           << "dp: {enabled: false}\n"
           << "state: {dir: " << dir << "/state}\n"
           << "http: {listen: \"127.0.0.1:" << port_ << "\"}\n";
    }
    config_ = config::LoadConfig(dir + "/vanon.yaml", {});
    const config::KafkaTopics& t = config_.kafka.topics;
    cluster->CreateTopic(t.input, input_partitions);
    cluster->CreateTopic(config_.state.changelog.topic, input_partitions);
    for (const std::string* name : {&t.dlq, &t.anonymized, &t.releases, &t.counts, &t.late}) {
      cluster->CreateTopic(*name, 1);
    }
    stop_ = false;
    service_ = std::make_unique<Service>(config_, "fail-closed-test-hmac-key-0123456789", testing::TestStateKeys());
    thread_ = std::thread([this] { rc_ = service_->Run(stop_); });
    producer_ = std::make_unique<kafka::Producer>(bootstrap_, kafka::KafkaProperties{}, kafka::KafkaProperties{});
    sent_ = 0;
  }

  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    EXPECT_EQ(rc_, 0);
    producer_.reset();
    service_.reset();
  }

  void TearDown() override { Stop(); }

  // The body carries no artist: only the registry knows it.
  void Produce(int vehicle, int64_t ts_ms, bool keyed = true) {
    const std::string vin = Vin(vehicle);
    const std::string value = "{\"vin\":\"" + vin + "\",\"trip_id\":\"trip-" + std::to_string(vehicle) +
                              "\",\"ts\":" + std::to_string(ts_ms) +
                              ",\"event\":\"touchscreen_used\",\"payload\":{\"screen\":\"nav\"}}";
    producer_->Produce(config_.kafka.topics.input, 0, keyed ? vin : std::string(), value);
    ++sent_;
  }

  void WaitConsumed() {
    ASSERT_TRUE(producer_->Flush(10000));
    ASSERT_TRUE(testing::WaitFor(30, [&] { return service_->Status().consumed >= sent_; }))
        << "the service did not consume event " << sent_;
  }

  kafka::MockCluster cluster_{1};
  testing::TempDir dir_;
  std::string bootstrap_;
  int port_ = 0;
  config::Config config_;
  std::unique_ptr<Service> service_;
  std::atomic<bool> stop_{false};
  int rc_ = -1;
  std::thread thread_;
  std::unique_ptr<kafka::Producer> producer_;
  uint64_t sent_ = 0;
};

// A registry aggregator once gave every tuple the sensitive value "": no group with m
// distinct values could form, and every event was suppressed.
TEST_F(FailClosedTest, RegistryAggregatorPublishesWithTheRegistryValue) {
  Start(/*registry_sensitive=*/true);
  for (int v = 0; v < kVehicles; ++v) Produce(v, kBase + 100 * v);
  Produce(0, kBase + kEpochMs + 2100);  // closes the epoch
  WaitConsumed();
  ASSERT_TRUE(testing::WaitFor(60, [&] { return service_->Status().releases >= 1; })) << "no release";
  const ServiceStatus s = service_->Status();
  EXPECT_EQ(s.released + s.suppressed, static_cast<uint64_t>(kVehicles));
  EXPECT_GE(s.released, static_cast<uint64_t>(kVehicles) / 2) << "suppressed " << s.suppressed;
  // The published groups carry the registry's artists.
  size_t with_artist = 0;
  for (const testing::TopicRecord& r : testing::ReadTopic(bootstrap_, config_.kafka.topics.releases)) {
    for (const char* a : kArtists) with_artist += r.value.find(a) != std::string::npos;
  }
  EXPECT_GT(with_artist, 0u);
}

// An applied release is never computed again; its seed must not stay in
// state, where it would let a state copy regenerate the release's randomness.
TEST_F(FailClosedTest, CommittedReleaseKeepsNoSeed) {
  Start(/*registry_sensitive=*/false);
  for (int v = 0; v < kVehicles; ++v) Produce(v, kBase + 100 * v);
  Produce(0, kBase + kEpochMs + 2100);  // closes the epoch
  WaitConsumed();
  ASSERT_TRUE(testing::WaitFor(60, [&] { return service_->Status().releases >= 1; })) << "no release";
  Stop();
  auto store = state::StateStore::Open(dir_.path() + "/state");
  std::optional<state::ReleaseLogEntry> e = store->GetRelease(0, kBase / kEpochMs);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->status, state::ReleaseStatus::kCommitted);
  EXPECT_EQ(e->seed, (std::array<uint8_t, 32>{})) << "the committed entry still holds its seed";
}

#ifdef VANON_FAULT_POINTS  // CorruptNextSharesForTesting (tests/service/CMakeLists.txt)
// ReleaseChecker runs on every share before its transaction: a corrupted
// share (a group member published twice) is withheld with its batch, the
// service keeps consuming, and the share, computed again, is published once.
TEST_F(FailClosedTest, ShareFailingTheCheckerIsNotPublished) {
  CorruptNextSharesForTesting(3);      // the first computation and two retries (1 s, 2 s, 4 s apart)
  Start(/*registry_sensitive=*/true);  // groups form (four artists): something to corrupt
  for (int v = 0; v < kVehicles; ++v) Produce(v, kBase + 100 * v);
  Produce(0, kBase + kEpochMs + 2100);  // closes the epoch
  WaitConsumed();
  ASSERT_TRUE(
      testing::WaitFor(30, [&] { return testing::ScrapeMetric(port_, "vanon_release_check_failures_total") >= 1; }));
  EXPECT_TRUE(testing::ReadTopic(bootstrap_, config_.kafka.topics.releases).empty());
  EXPECT_TRUE(testing::ReadTopic(bootstrap_, config_.kafka.topics.anonymized).empty());
  EXPECT_EQ(service_->Status().releases, 0u);
  Produce(1, kBase + kEpochMs + 2200);  // ingestion goes on meanwhile
  WaitConsumed();
  ASSERT_TRUE(testing::WaitFor(60, [&] { return service_->Status().releases >= 1; })) << "never published";
  CorruptNextSharesForTesting(0);
  EXPECT_EQ(testing::ScrapeMetric(port_, "vanon_release_check_failures_total"), 3);
  size_t summaries = 0;
  for (const testing::TopicRecord& r : testing::ReadTopic(bootstrap_, config_.kafka.topics.releases)) {
    summaries += r.value.find("\"type\":\"summary\"") != std::string::npos;
  }
  EXPECT_EQ(summaries, 1u);
}
#endif  // VANON_FAULT_POINTS

// A producer without keys spreads one vehicle over partitions: such events
// go to the DLQ with a reason, they are not buffered.
TEST_F(FailClosedTest, EventsWithoutAKeyGoToTheDlq) {
  Start(/*registry_sensitive=*/false);
  for (int v = 0; v < 6; ++v) Produce(v, kBase + 100 * v, /*keyed=*/false);
  Produce(7, kBase + 1000);
  WaitConsumed();
  const ServiceStatus s = service_->Status();
  EXPECT_EQ(s.rejected, 6u);
  EXPECT_EQ(s.buffered, 1u);
  size_t missing_key = 0;
  for (const testing::TopicRecord& r : testing::ReadTopic(bootstrap_, config_.kafka.topics.dlq)) {
    auto it = r.headers.find("vanon.reason");
    missing_key += it != r.headers.end() && it->second == "missing_key";
  }
  EXPECT_EQ(missing_key, 6u);
}

// Adding partitions to the input topic moves vehicles to partitions whose
// state does not know them. A restart against a topic with another count
// must not consume: not ready, with the reason, and the metric set.
TEST_F(FailClosedTest, InputPartitionCountChangeStopsConsumption) {
  Start(/*registry_sensitive=*/false);
  Produce(0, kBase);
  WaitConsumed();
  EXPECT_EQ(testing::ScrapeMetric(port_, "vanon_input_partitions_changed"), 0);
  Stop();

  kafka::MockCluster grown(1);  // the same topics, the input with 2 partitions
  Start(/*registry_sensitive=*/false, &grown, /*input_partitions=*/2);
  ASSERT_TRUE(testing::WaitFor(30, [&] { return service_->Status().partitions_changed; }));
  for (int v = 1; v < 5; ++v) Produce(v, kBase + v);
  ASSERT_TRUE(producer_->Flush(10000));
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const ServiceStatus s = service_->Status();
  EXPECT_FALSE(s.ready);
  EXPECT_EQ(s.accepted, 0u) << "events were consumed after the partition count changed";
  EXPECT_EQ(testing::ScrapeMetric(port_, "vanon_input_partitions_changed"), 1);
  httplib::Client http("127.0.0.1", port_);
  auto ready = http.Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 503);
  EXPECT_NE(ready->body.find("2 partitions, state was written with 1"), std::string::npos) << ready->body;
  Stop();
  // State holds the first run's counts only (events of open epochs are
  // never stored).
  auto store = state::StateStore::Open(dir_.path() + "/state");
  EXPECT_EQ(store->LoadProgress(0).consumed, 1u);
  EXPECT_EQ(store->LoadProgress(0).accepted, 1u);
  EXPECT_EQ(store->LoadProgress(1).consumed, 0u);
}

}  // namespace
}  // namespace vanon::service
