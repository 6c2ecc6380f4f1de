// Global DP counts: the partitions' exact window counts go to the
// aggregation partition, which publishes one noisy count per cell and window,
// once, complete (or marked incomplete), and the same after a crash.
// The internal topic is an in-memory list here; the Kafka path is covered by
// tests/service/dp_global_integration_test.cc.

#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <chrono>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "dp_fixture.h"
#include "vanon/release/seed_stream.h"
#include "service/dp/dp_partial_source.h"
#include "service/dp/dp_publisher.h"
#include "vanon/state/state_store.h"

namespace vanon::service {
namespace {

using dp_test::Events;
using dp_test::kEpochMs;
using dp_test::kHmacKey;
using dp_test::SeedOf;
using dp_test::TempDir;
using dp_test::TestConfig;
using dp_test::Values;

constexpr int32_t kPartitions = 4;
constexpr int64_t kWindowMs = 3 * kEpochMs;

// The internal topic: records become visible when their release commits.
struct MemoryTopic {
  std::vector<std::string> records;
};

class MemorySource final : public DpPartialSource {
 public:
  explicit MemorySource(MemoryTopic* t) : topic_(t) {}
  void Read(int64_t from, int64_t bound, const Visit& fn) override {
    const int64_t end =
        bound >= 0 ? std::min<int64_t>(bound, topic_->records.size()) : static_cast<int64_t>(topic_->records.size());
    for (int64_t o = std::max<int64_t>(from, 0); o < end; ++o) fn(o, topic_->records[o]);
  }

 private:
  MemoryTopic* topic_;
};

config::Config GlobalConfig(const TempDir& dir, double epsilon = 0.1) {
  config::Config c = TestConfig(dir);
  c.dp.window_seconds = kWindowMs / 1000;
  c.dp.epsilon_per_release = epsilon;
  c.dp.budget_epsilon = 1000 * epsilon;
  c.dp.aggregation.topic = "vanon.dp.partials";
  c.dp.aggregation.partition = 0;
  c.dp.aggregation.max_wait_windows = 1;
  return c;
}

// Vehicles of partition p: disjoint key ranges (a vehicle is in one partition).
std::vector<ingest::BufferedEvent> PartitionEvents(int32_t p, int64_t epoch, int vehicles) {
  std::vector<ingest::BufferedEvent> ev = Events(vehicles, epoch * kEpochMs);
  for (ingest::BufferedEvent& e : ev) {
    e.vehicle_key[2] = static_cast<uint8_t>(p + 1);
    e.trip_key[2] = static_cast<uint8_t>(p + 1);
  }
  return ev;
}

struct Service : dp_test::DpService {
  MemoryTopic* topic;

  Service(const config::Config& c, const std::string& dir, MemoryTopic* t) : DpService(c, dir), topic(t) {
    dp->SetAggregation(kPartitions, std::make_unique<MemorySource>(t));
  }
  DpPublisher::Result Compute(int32_t p, int64_t epoch, uint8_t seed, int vehicles = 12) {
    const auto events = PartitionEvents(p, epoch, vehicles);
    release::SeedStream random(SeedOf(static_cast<uint8_t>(seed + 16 * p)));
    const int64_t start = epoch * kEpochMs;
    return dp->Compute(p, epoch, start, start + kEpochMs, events, random);
  }
  // Compute, the transaction's commit (partials become visible), apply.
  DpPublisher::Result Release(int32_t p, int64_t epoch, uint8_t seed = 7, int vehicles = 12) {
    DpPublisher::Result r = Compute(p, epoch, seed, vehicles);
    for (const auto& [k, v] : r.partials) topic->records.push_back(v);
    Commit(p, r);
    return r;
  }
  // Every partition in `order` releases `epoch`.
  std::map<int32_t, DpPublisher::Result> Epoch(int64_t epoch, std::vector<int32_t> order = {3, 2, 1, 0},
                                               uint8_t seed = 7, int vehicles = 12) {
    std::map<int32_t, DpPublisher::Result> out;
    for (int32_t p : order) out[p] = Release(p, epoch, seed, vehicles);
    return out;
  }
};

TEST(DpAggregationTest, OneGlobalCountPerWindowPublishedOnceByTheAggregationPartition) {
  TempDir dir("agg_once");
  MemoryTopic topic;
  Service s(GlobalConfig(dir), dir.Sub("state"), &topic);
  size_t windows = 0;
  for (int64_t epoch = 0; epoch < 9; ++epoch) {
    for (const auto& [p, r] : s.Epoch(epoch)) {
      if (p != 0) {
        EXPECT_TRUE(r.records.empty()) << "partition " << p << " published its own counts";
        EXPECT_EQ(r.partials.size(), epoch % 3 == 2 ? 1u : 0u);
        continue;
      }
      // Its own partials, read back from the topic, are not late ones.
      EXPECT_EQ(r.partials_dropped, 0u) << "epoch " << epoch;
      if (epoch % 3 != 2) {
        EXPECT_TRUE(r.records.empty()) << "epoch " << epoch;
        continue;
      }
      ++windows;
      ASSERT_FALSE(r.records.empty());
      const int64_t start = (epoch / 3) * kWindowMs;
      for (const std::string& rec : r.records) {
        EXPECT_NE(rec.find("\"scope\":\"global\",\"partitions\":4,\"contributing_partitions\":[0,1,2,3],"
                           "\"complete\":true"),
                  std::string::npos)
            << rec;
        EXPECT_EQ(rec.find("\"partition\":"), std::string::npos) << rec;
      }
      EXPECT_NE(r.records[0].find("\"window_start_ms\":" + std::to_string(start) + ","), std::string::npos);
      // One charge per window on the aggregation partition's ledger.
      EXPECT_DOUBLE_EQ(r.status.spent.ToDouble(), 0.1 * static_cast<double>(windows));
    }
  }
  EXPECT_EQ(windows, 3u);
}

// 4 partitions x 12 vehicles: the global vehicles_by_engine sums to 48, not 12.
TEST(DpAggregationTest, GlobalCountIsTheSumOverPartitions) {
  TempDir dir("agg_sum");
  MemoryTopic topic;
  Service s(GlobalConfig(dir, 100), dir.Sub("state"), &topic);
  s.Epoch(0);
  s.Epoch(1);
  const auto values = Values(s.Epoch(2)[0].records);
  int64_t total = 0;
  for (const auto& [key, v] : values) {
    if (key.rfind("vehicles_by_engine", 0) == 0 && key.find("discrete_laplace") != std::string::npos) total += v;
  }
  EXPECT_NEAR(total, 48, 3);
}

// Acceptance: a crash of the aggregating share after it charged the window
// (records possibly out, apply batch not) neither charges the window again
// nor changes a value, even when more partials arrived in the meantime.
TEST(DpAggregationTest, RecomputeAfterCrashRepublishesTheSameGlobalCountsWithoutChargingTwice) {
  TempDir dir("agg_crash");
  MemoryTopic topic;
  const config::Config config = GlobalConfig(dir);
  DpPublisher::Result first;
  {
    Service s(config, dir.Sub("state"), &topic);
    s.Epoch(0);
    s.Epoch(1);
    s.Epoch(2, {3, 2, 1});
    first = s.Compute(0, 2, 9);  // crash: never applied
    ASSERT_FALSE(first.records.empty());
    // Meanwhile the others release their next epochs, and one of them
    // sends a partial of window 1 early (its last epoch came first).
    s.Release(1, 3);
    s.Release(1, 4);
    s.Release(1, 5);
  }
  for (int restart = 0; restart < 2; ++restart) {
    Service again(config, dir.Sub("state"), &topic);
    const DpPublisher::Result r = again.Compute(0, 2, 9);
    EXPECT_EQ(r.records, first.records) << "restart " << restart;
    EXPECT_EQ(r.meta, first.meta) << "restart " << restart;
    EXPECT_DOUBLE_EQ(r.status.spent.ToDouble(), 0.1) << "window charged twice, restart " << restart;
  }
  Service applied(config, dir.Sub("state"), &topic);
  applied.Release(0, 2, 9);
  EXPECT_TRUE(applied.Release(0, 3).records.empty());  // window 0 is not published again
  applied.Release(0, 4);
  applied.Release(2, 5);
  applied.Release(3, 5);
  const DpPublisher::Result next = applied.Release(0, 5);
  ASSERT_FALSE(next.records.empty());
  EXPECT_NE(next.records[0].find("\"window_start_ms\":" + std::to_string(kWindowMs)), std::string::npos);
  EXPECT_DOUBLE_EQ(next.status.spent.ToDouble(), 0.2);
}

// The windows of the window counts among `records` (running totals, the
// cumulative sums, carry window_start_ms 0).
std::set<std::string> WindowStarts(const std::vector<std::string>& records) {
  static const std::regex kWindow(R"re("window_start_ms":(\d+),)re");
  std::set<std::string> out;
  for (const std::string& r : records) {
    std::smatch m;
    if (r.find("discrete_laplace") != std::string::npos && std::regex_search(r, m, kWindow)) out.insert(m[1].str());
  }
  return out;
}

// The aggregation partition's state is lost (a new state dir without the
// changelog, a bad restore): it reads the partial topic from its start
// again. The marks the earlier aggregation left there keep it from
// publishing window 0 a second time with fresh noise; window 0's charge is
// carried into its new ledger.
TEST(DpAggregationTest, AggregatorThatLostItsStateDoesNotPublishAWindowAgain) {
  TempDir dir("agg_lost");
  MemoryTopic topic;
  const config::Config config = GlobalConfig(dir);
  {
    Service s(config, dir.Sub("state"), &topic);
    s.Epoch(0);
    s.Epoch(1);
    const DpPublisher::Result r = s.Epoch(2).at(0);
    ASSERT_EQ(WindowStarts(r.records), std::set<std::string>{"0"}) << "positive control: window 0 published";
  }
  Service fresh(config, dir.Sub("state-lost"), &topic);
  std::vector<std::string> published;
  DpPublisher::Result last;
  for (int64_t epoch = 3; epoch < 9; ++epoch) {
    last = fresh.Epoch(epoch).at(0);
    published.insert(published.end(), last.records.begin(), last.records.end());
  }
  EXPECT_EQ(WindowStarts(published), (std::set<std::string>{std::to_string(kWindowMs), std::to_string(2 * kWindowMs)}))
      << "window 0 published again, or window 1 or 2 not published";
  EXPECT_DOUBLE_EQ(last.status.spent.ToDouble(), 0.3) << "window 0's charge not carried over";
  for (const std::string& r : published) EXPECT_NE(r.find("\"complete\":true"), std::string::npos) << r;
}

// dp.aggregation.partition changed from 0 to 1 (every instance restarted
// with the new config): partition 1 has no aggregation state of its own. It
// continues after the last window partition 0 published, with that
// window's charge in its ledger, instead of publishing every retained
// window again from the partial topic.
TEST(DpAggregationTest, ChangedAggregationPartitionContinuesAfterThePreviousOnesLastWindow) {
  TempDir dir("agg_moved");
  MemoryTopic topic;
  config::Config config = GlobalConfig(dir);
  {
    Service s(config, dir.Sub("state"), &topic);
    for (int64_t epoch = 0; epoch < 3; ++epoch) s.Epoch(epoch);
  }
  config.dp.aggregation.partition = 1;
  Service moved(config, dir.Sub("state"), &topic);
  std::vector<std::string> published;
  DpPublisher::Result last;
  for (int64_t epoch = 3; epoch < 9; ++epoch) {
    const auto released = moved.Epoch(epoch, {3, 2, 0, 1});  // the aggregating partition last
    EXPECT_TRUE(released.at(0).records.empty()) << "the former aggregation partition published";
    last = released.at(1);
    published.insert(published.end(), last.records.begin(), last.records.end());
  }
  EXPECT_EQ(WindowStarts(published), (std::set<std::string>{std::to_string(kWindowMs), std::to_string(2 * kWindowMs)}))
      << "window 0 published again, or window 1 or 2 not published";
  EXPECT_DOUBLE_EQ(last.status.spent.ToDouble(), 0.3) << "window 0's charge not carried over";
  for (const std::string& r : published) EXPECT_NE(r.find("\"complete\":true"), std::string::npos) << r;
}

// A partition that never reports: the window goes out max_wait_windows
// later with the partitions that did, and says so.
TEST(DpAggregationTest, WindowMissingAPartitionIsPublishedLateAndMarkedIncomplete) {
  TempDir dir("agg_incomplete");
  MemoryTopic topic;
  Service s(GlobalConfig(dir), dir.Sub("state"), &topic);
  const std::vector<int32_t> without3 = {2, 1, 0};
  for (int64_t epoch = 0; epoch < 3; ++epoch) EXPECT_TRUE(s.Epoch(epoch, without3)[0].records.empty());
  for (int64_t epoch = 3; epoch < 6; ++epoch) EXPECT_TRUE(s.Epoch(epoch, without3)[0].records.empty());
  // Window 2 starts at epoch 6: window 0 has waited one more window.
  const DpPublisher::Result r = s.Epoch(6, without3)[0];
  ASSERT_FALSE(r.records.empty());
  EXPECT_NE(r.records[0].find("\"window_start_ms\":0,"), std::string::npos) << r.records[0];
  EXPECT_NE(r.records[0].find("\"contributing_partitions\":[0,1,2],\"complete\":false"), std::string::npos)
      << r.records[0];
  EXPECT_EQ(r.global_incomplete, 1u);
  EXPECT_EQ(r.global_complete, 0u);
  // A late partial of window 0 is dropped, not published again.
  const auto before = topic.records.size();
  s.Release(3, 2);
  EXPECT_EQ(topic.records.size(), before + 1);
  const DpPublisher::Result later = s.Release(0, 7);
  EXPECT_EQ(later.partials_dropped, 1u);
  for (const std::string& rec : later.records) EXPECT_EQ(rec.find("\"window_start_ms\":0,"), std::string::npos);
}

// Acceptance: no published global count is noiseless.
// Window 1 has no release on any partition (no input in its epochs): it is
// published all the same, before window 2, with zero exact counts plus
// noise, no contributing partition and complete false, so its index is not
// missing from the output; its noise comes from the ledger like any window.
TEST(DpAggregationTest, WindowNoPartitionReportedIsPublishedEmptyAndIncomplete) {
  TempDir dir("agg_empty");
  MemoryTopic topic;
  Service s(GlobalConfig(dir), dir.Sub("state"), &topic);
  for (int64_t epoch = 0; epoch < 3; ++epoch) s.Epoch(epoch);
  std::vector<std::string> records;
  for (int64_t epoch = 6; epoch < 9; ++epoch) {
    const auto released = s.Epoch(epoch);
    for (const std::string& r : released.at(0).records) records.push_back(r);
  }
  std::map<std::string, std::string> by_window;  // window_start_ms -> one discrete_laplace record
  std::vector<std::string> window1;
  static const std::regex kWindow(R"re("window_start_ms":(\d+),)re");
  for (const std::string& r : records) {
    std::smatch m;
    if (r.find("discrete_laplace") == std::string::npos || !std::regex_search(r, m, kWindow)) continue;
    by_window.emplace(m[1].str(), r);
    if (m[1].str() == std::to_string(kWindowMs)) window1.push_back(r);
  }
  ASSERT_EQ(by_window.size(), 2u) << "windows 1 and 2";
  const std::string empty = by_window.at(std::to_string(kWindowMs));
  EXPECT_NE(empty.find("\"contributing_partitions\":[],\"complete\":false"), std::string::npos) << empty;
  EXPECT_NE(by_window.at(std::to_string(2 * kWindowMs)).find("\"contributing_partitions\":[0,1,2,3],\"complete\":true"),
            std::string::npos);
  // Windows 0, 1 and 2 charged once each on the aggregation partition.
  EXPECT_DOUBLE_EQ(s.Epoch(9)[0].status.spent.ToDouble(), 0.3);
  // The empty window's cells are noise around zero, not zeros: over its
  // count records some value (unclamped) differs from 0.
  bool noisy = false;
  ASSERT_GE(Values(window1).size(), 10u);
  for (const auto& [key, v] : Values(window1)) {
    (void)key;
    noisy = noisy || v != 0;
  }
  EXPECT_TRUE(noisy);
}

TEST(DpAggregationTest, EveryGlobalCountVariesWithTheReleaseSeed) {
  std::map<std::string, std::set<int64_t>> seen;
  for (uint8_t seed = 1; seed <= 12; ++seed) {
    TempDir dir("agg_noise");
    MemoryTopic topic;
    Service s(GlobalConfig(dir), dir.Sub("state"), &topic);
    s.Epoch(0, {3, 2, 1, 0}, seed);
    s.Epoch(1, {3, 2, 1, 0}, seed);
    for (const auto& [key, v] : Values(s.Epoch(2, {3, 2, 1, 0}, seed)[0].records)) seen[key].insert(v);
  }
  ASSERT_GT(seen.size(), 10u);
  for (const auto& [key, values] : seen) {
    EXPECT_GT(values.size(), 1u) << key << " is the same in every draw: published without noise";
  }
}

double GaugeOf(prometheus::Registry& registry, const std::string& name) {
  for (const auto& family : registry.Collect()) {
    if (family.name == name) return family.metric.at(0).gauge.value;
  }
  ADD_FAILURE() << name << " not exported";
  return -1;
}

double WallSecondsNow() {
  using namespace std::chrono;
  return static_cast<double>(duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count()) / 1000.0;
}

// The stalled alert takes the maximum of this gauge over instances: it must
// have a value from the start on every instance, or an aggregation partition
// that never releases (never assigned, its instance stuck) would leave nothing
// to fire on.
TEST(DpAggregationTest, EveryInstanceExportsItsStartAsTheLastGlobalPublicationUntilItPublishes) {
  const std::string name = "vanon_dp_global_last_published_timestamp_seconds";
  TempDir dir("agg_gauge");
  MemoryTopic topic;
  const double before = WallSecondsNow();
  Service s(GlobalConfig(dir), dir.Sub("state"), &topic);
  const double started = GaugeOf(s.registry, name);
  EXPECT_GE(started, before - 1);
  EXPECT_LE(started, WallSecondsNow() + 1);
  EXPECT_DOUBLE_EQ(GaugeOf(s.registry, "vanon_dp_global_max_wait_seconds"), 2.0 * kWindowMs / 1000);

  // Epochs that close no window publish nothing: the gauge keeps the start.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  s.Epoch(0);
  EXPECT_DOUBLE_EQ(GaugeOf(s.registry, name), started);
  s.Epoch(1);
  s.Epoch(2);  // closes window 0
  EXPECT_GT(GaugeOf(s.registry, name), started);

  // Without dp.aggregation: 0, which the alert ignores.
  TempDir plain("agg_gauge_off");
  dp_test::DpService off(TestConfig(plain), plain.Sub("state"));
  EXPECT_EQ(GaugeOf(off.registry, name), 0);
}

}  // namespace
}  // namespace vanon::service
