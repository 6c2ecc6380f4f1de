// privacy.epoch.precompute: a partition's share is computed once its event
// time passes the epoch's end, before the epoch closes. An event of the
// epoch that arrives in between (on time: within the allowed lateness) must
// make the service drop that result and compute the share again, or the
// event would be deleted from state without ever being released.
//
// The service runs in-process on the mock cluster with one input partition;
// the test produces each event only after the service has consumed the one
// before, so the order in which it sees them is the order written here.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>

#include "test_support.h"
#include "vanon/config.h"
#include "vanon/fleet/fleet_generator.h"
#include "vanon/kafka/mock_cluster.h"
#include "vanon/kafka/producer.h"
#include "vanon/service/service.h"
#include "vanon/vehicle/vin_decoder.h"

namespace vanon::service {
namespace {

constexpr int64_t kEpochMs = 10000;
constexpr int64_t kBase = 1700000000000;  // an epoch boundary
constexpr int kVehicles = 40;

class PrecomputeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bootstrap_ = cluster_.Bootstrap();
    port_ = testing::FreePort();
    config_ = config::LoadConfig(
        std::string(VANON_SOURCE_DIR) + "/config/demo.yaml",
        {"kafka.bootstrap=" + bootstrap_, "state.dir=" + dir_.path(), "http.listen=127.0.0.1:" + std::to_string(port_),
         "privacy.epoch.length_seconds=10", "privacy.epoch.allowed_lateness_seconds=5",
         "privacy.epoch.idle_timeout_seconds=3600", "privacy.m=2",
         // Tuples that cannot be published at once are suppressed rather
         // than wait: every event of a closed epoch is then accounted.
         "privacy.max_delay_epochs=0"});
    const config::KafkaTopics& t = config_.kafka.topics;
    cluster_.CreateTopic(t.input, 1);
    cluster_.CreateTopic(config_.state.changelog.topic, 1);
    for (const std::string* name : {&t.dlq, &t.anonymized, &t.releases, &t.counts, &t.late}) {
      cluster_.CreateTopic(*name, 1);
    }
    fleet::VinDecoder table = fleet::VinDecoder::Load(config_.vehicle.vin_table);
    fleet::FleetOptions f;
    f.vehicles = kVehicles;
    f.seed = 5;
    fleet::FleetGenerator gen(f, table);
    for (const fleet::FleetVehicle& v : gen.Vehicles()) vins_.push_back(v.vin);
    service_ = std::make_unique<Service>(config_, "precompute-test-hmac-key-0123456789", testing::TestStateKeys());
    thread_ = std::thread([this] { rc_ = service_->Run(stop_); });
    producer_ = std::make_unique<kafka::Producer>(bootstrap_, kafka::KafkaProperties{}, kafka::KafkaProperties{});
  }

  void TearDown() override {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    EXPECT_EQ(rc_, 0);
  }

  // Produces valid events, then waits until the service has consumed them.
  void Send(size_t vehicle, int64_t ts_ms, int count = 1, int64_t step_ms = 0) {
    for (int i = 0; i < count; ++i) Produce(vehicle + static_cast<size_t>(i), ts_ms + i * step_ms);
    ASSERT_TRUE(producer_->Flush(10000));
    ASSERT_TRUE(testing::WaitFor(30, [&] { return service_->Status().consumed >= sent_; }))
        << "the service did not consume event " << sent_;
  }

  void Produce(size_t vehicle, int64_t ts_ms) {
    const std::string& vin = vins_[vehicle % vins_.size()];
    const std::string value = "{\"vin\":\"" + vin + "\",\"trip_id\":\"trip-" + std::to_string(vehicle) +
                              "\",\"ts\":" + std::to_string(ts_ms) +
                              ",\"event\":\"touchscreen_used\",\"payload\":{\"screen\":\"nav\"}}";
    producer_->Produce(config_.kafka.topics.input, 0, vin, value);
    ++sent_;
  }

  void WaitForReleases(uint64_t n) {
    ASSERT_TRUE(testing::WaitFor(60, [&] { return service_->Status().releases >= n; }))
        << "release " << n << " was not committed";
  }

  double Precomputes(const char* outcome) {
    return testing::ScrapeMetric(port_, std::string("vanon_release_precomputes_total{outcome=\"") + outcome + "\"}");
  }

  kafka::MockCluster cluster_{1};
  testing::TempDir dir_;
  std::string bootstrap_;
  int port_ = 0;
  config::Config config_;
  std::vector<std::string> vins_;
  std::unique_ptr<Service> service_;
  std::atomic<bool> stop_{false};
  int rc_ = -1;
  std::thread thread_;
  std::unique_ptr<kafka::Producer> producer_;
  uint64_t sent_ = 0;
};

TEST_F(PrecomputeTest, EventArrivingAfterThePrecomputationIsReleasedWithItsEpoch) {
  // Epoch [kBase, kBase + 10 s): two events per vehicle.
  Send(0, kBase, 2 * kVehicles, 100);
  // Past the epoch's end: its share is computed now (the epoch closes only
  // at kBase + 15 s of event time).
  Send(0, kBase + kEpochMs + 200);
  // An event of the epoch, on time: the computed share has missed it.
  Send(1, kBase + kEpochMs - 50);
  Send(2, kBase + kEpochMs + 5100);  // closes the epoch
  WaitForReleases(1);
  ServiceStatus s = service_->Status();
  EXPECT_EQ(s.late, 0u);
  // Every event of the epoch, the late-arriving one included, is released
  // or suppressed; the two of the next epoch are still buffered.
  EXPECT_EQ(s.released + s.suppressed, static_cast<uint64_t>(2 * kVehicles + 1));
  EXPECT_EQ(s.buffered, 2u);
  EXPECT_EQ(Precomputes("dropped"), 1);
  EXPECT_EQ(Precomputes("used"), 0);

  // The next epoch gets nothing after its precomputation: the result is used.
  Send(3, kBase + 2 * kEpochMs + 300);
  Send(4, kBase + 2 * kEpochMs + 5200);
  WaitForReleases(2);
  s = service_->Status();
  EXPECT_EQ(s.late, 0u);
  EXPECT_EQ(s.released + s.suppressed, static_cast<uint64_t>(2 * kVehicles + 3));
  EXPECT_EQ(s.buffered, 2u);
  EXPECT_EQ(Precomputes("dropped"), 1);
  EXPECT_EQ(Precomputes("used"), 1);
}

}  // namespace
}  // namespace vanon::service
