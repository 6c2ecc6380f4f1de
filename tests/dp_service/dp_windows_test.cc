// DP windows in the service: counts over windows of several
// release epochs, published once per window with one ledger charge, bounded
// per vehicle over the window, republished identically after a crash, with
// running totals as cumulative sums of the window counts.

#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "dp_fixture.h"
#include "vanon/release/seed_stream.h"
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

constexpr int32_t kPartition = 1;
constexpr int64_t kWindowMs = 3 * kEpochMs;

config::Config WindowConfig(const TempDir& dir) {
  config::Config c = TestConfig(dir);
  c.dp.window_seconds = kWindowMs / 1000;
  c.dp.budget_epsilon = 10;
  return c;
}

struct Service : dp_test::DpService {
  using DpService::DpService;

  DpPublisher::Result Compute(int64_t epoch, uint8_t seed, int vehicles = 12) {
    const int64_t start = epoch * kEpochMs;
    const auto events = Events(vehicles, start);
    release::SeedStream random(SeedOf(seed));
    return dp->Compute(kPartition, epoch, start, start + kEpochMs, events, random);
  }
  DpPublisher::Result Release(int64_t epoch, uint8_t seed = 7, int vehicles = 12) {
    DpPublisher::Result r = Compute(epoch, seed, vehicles);
    Commit(kPartition, r);
    return r;
  }
};

TEST(DpWindowsTest, PublishedOncePerWindowWithOneCharge) {
  TempDir dir("windows_once");
  Service s(WindowConfig(dir), dir.Sub("state"));
  for (int64_t epoch = 0; epoch < 6; ++epoch) {
    const DpPublisher::Result r = s.Release(epoch);
    const bool closes = epoch % 3 == 2;
    EXPECT_EQ(r.records.empty(), !closes) << "epoch " << epoch;
    // One charge of epsilon_per_release per closed window, none in between.
    EXPECT_DOUBLE_EQ(r.status.spent.ToDouble(), 0.1 * static_cast<double>((epoch + 1) / 3)) << "epoch " << epoch;
    if (closes) {
      const int64_t start = (epoch / 3) * kWindowMs;
      EXPECT_NE(r.records[0].find("\"window_start_ms\":" + std::to_string(start) +
                                  ",\"window_end_ms\":" + std::to_string(start + kWindowMs)),
                std::string::npos)
          << r.records[0];
      EXPECT_EQ(r.records.back().find("binary_tree"), std::string::npos);  // no tree counters with windows
    }
  }
}

// 12 vehicles in epochs 0 and 1, 6 of them again in epoch 2: the window has
// 12 distinct vehicles, not 30 (summing per-epoch counts) nor 6 (the last
// epoch alone). Epsilon 100 makes the noise small (scale 4 / 20 per
// measurement).
TEST(DpWindowsTest, VehiclesAreBoundedOverTheWholeWindow) {
  TempDir dir("windows_bound");
  config::Config c = WindowConfig(dir);
  c.dp.epsilon_per_release = 100;
  c.dp.budget_epsilon = 1000;
  Service s(c, dir.Sub("state"));
  s.Release(0);
  s.Release(1);
  const auto values = Values(s.Release(2, 7, 6).records);
  int64_t total = 0;
  for (const auto& [key, v] : values) {
    if (key.rfind("vehicles_by_engine", 0) == 0 && key.find("discrete_laplace") != std::string::npos) total += v;
  }
  EXPECT_NEAR(total, 12, 3);
}

// Acceptance: a crash after the closing release charged the window (its
// records may have gone out, its apply batch did not) must not charge the
// window again, and the recomputation must publish the same values.
TEST(DpWindowsTest, RecomputeAfterCrashRepublishesTheWindowWithoutChargingTwice) {
  TempDir dir("windows_crash");
  const config::Config config = WindowConfig(dir);
  DpPublisher::Result first;
  {
    Service s(config, dir.Sub("state"));
    s.Release(0);
    s.Release(1);
    first = s.Compute(2, 9);  // crash: never applied
  }
  for (int restart = 0; restart < 2; ++restart) {
    Service again(config, dir.Sub("state"));
    const DpPublisher::Result r = again.Compute(2, 9);
    ASSERT_FALSE(first.records.empty());
    EXPECT_EQ(r.records, first.records) << "restart " << restart;
    EXPECT_EQ(r.meta, first.meta);
    EXPECT_DOUBLE_EQ(r.status.spent.ToDouble(), 0.1) << "window charged twice, restart " << restart;
  }
  Service applied(config, dir.Sub("state"));
  applied.Release(2, 9);
  EXPECT_DOUBLE_EQ(applied.Release(5, 3).status.spent.ToDouble(), 0.2);  // next window: one more charge
}

// Acceptance (service side): no published count is noiseless. The same
// window published from fresh state with different release seeds differs
// in every discrete Laplace record.
TEST(DpWindowsTest, EveryWindowCountVariesWithTheReleaseSeed) {
  std::map<std::string, std::set<int64_t>> seen;
  for (uint8_t seed = 1; seed <= 12; ++seed) {
    TempDir dir("windows_noise");
    Service s(WindowConfig(dir), dir.Sub("state"));
    s.Release(0, seed, 40);
    s.Release(1, seed, 40);
    for (const auto& [key, v] : Values(s.Release(2, seed, 40).records)) seen[key].insert(v);
  }
  ASSERT_GT(seen.size(), 10u);
  for (const auto& [key, values] : seen) {
    EXPECT_GT(values.size(), 1u) << key << " is the same in every draw: published without noise";
  }
}

// The open window's state is written per release only for the epoch's
// vehicles, and goes through the apply batch's changes, which the state
// changelog copies: a partition restored from those changes (tombstones
// applied) continues the window and publishes what the original publishes,
// and a closed window leaves no per-vehicle record behind.
TEST(DpWindowsTest, IncrementalWindowStateRestoresFromTheChangelog) {
  TempDir dir("windows_changelog");
  const config::Config config = WindowConfig(dir);
  Service original(config, dir.Sub("state"));
  std::map<std::string, std::optional<std::string>> changelog;  // key -> last value (nullopt: tombstone)
  auto release = [&](int64_t epoch, int vehicles) {
    DpPublisher::Result r = original.Compute(epoch, 7, vehicles);
    state::ReleaseWrite w(*original.store);
    dp_test::ApplyToWrite(*original.dp, kPartition, r, &w);
    for (const state::StateChange& c : w.Changes()) {
      if (c.family == state::StateFamily::kMeta) changelog[c.key] = c.value;
    }
    original.store->Commit(w);
    original.dp->Committed(r);
    return r;
  };
  auto count_named = [](const DpPublisher::Result& r, const std::string& prefix) {
    size_t n = 0;
    for (const auto& [name, value] : r.meta) n += name.rfind(prefix, 0) == 0 ? 1 : 0;
    return n;
  };
  auto live_vehicle_records = [&] {
    size_t n = 0;
    for (const auto& [key, value] : changelog) n += value && key.find("dp_wv/") != std::string::npos ? 1 : 0;
    return n;
  };
  const DpPublisher::Result r0 = release(0, 12);
  EXPECT_EQ(count_named(r0, "dp_wv/"), 12u);
  EXPECT_EQ(count_named(r0, "dp_wk/"), 1u);
  const DpPublisher::Result r1 = release(1, 6);  // 6 vehicles seen before: 6 records, no new key list
  EXPECT_EQ(count_named(r1, "dp_wv/"), 6u);
  EXPECT_EQ(count_named(r1, "dp_wk/"), 0u);
  EXPECT_EQ(live_vehicle_records(), 12u);

  std::vector<state::StateChange> records;
  for (const auto& [key, value] : changelog) {
    if (value) records.push_back({state::StateFamily::kMeta, key, value});
  }
  Service restored(config, dir.Sub("restored"));
  restored.store->ReplacePartition(kPartition, records);
  const DpPublisher::Result from_changelog = restored.Compute(2, 9);
  const DpPublisher::Result closing = release(2, 12);
  // What the original publishes at the close with the same seed, from the
  // same releases applied to a store of its own.
  TempDir dir2("windows_changelog_ref");
  Service reference(config, dir2.Sub("state"));
  reference.Release(0, 7, 12);
  reference.Release(1, 7, 6);
  EXPECT_EQ(from_changelog.records, reference.Compute(2, 9).records);
  EXPECT_FALSE(from_changelog.records.empty());
  EXPECT_EQ(from_changelog.meta_deleted, closing.meta_deleted);
  EXPECT_EQ(closing.meta_deleted.size(), 13u);  // 12 vehicle records and one key list
  EXPECT_EQ(live_vehicle_records(), 0u) << "a closed window left per-vehicle records in the changelog";
}

TEST(DpWindowsTest, WindowWhoseLastEpochNeverCameIsPublishedByTheNextRelease) {
  TempDir dir("windows_gap");
  Service s(WindowConfig(dir), dir.Sub("state"));
  EXPECT_TRUE(s.Release(0).records.empty());
  const DpPublisher::Result r = s.Release(4);  // epochs 1-3 had no release
  ASSERT_FALSE(r.records.empty());
  EXPECT_NE(r.records[0].find("\"window_start_ms\":0,"), std::string::npos) << r.records[0];
  EXPECT_DOUBLE_EQ(r.status.spent.ToDouble(), 0.1);
  // Window 1 (epochs 3-5) is open with epoch 4's events and closes at 5.
  EXPECT_EQ(s.Release(5).records.empty(), false);
}

TEST(DpWindowsTest, RunningTotalsAreSumsOfTheWindowCounts) {
  TempDir dir("windows_sums");
  Service s(WindowConfig(dir), dir.Sub("state"));
  std::vector<std::map<std::string, int64_t>> windows;
  for (int64_t epoch = 0; epoch < 9; ++epoch) {
    const auto r = s.Release(epoch);
    if (!r.records.empty()) windows.push_back(Values(r.records));
  }
  ASSERT_EQ(windows.size(), 3u);
  size_t checked = 0;
  for (const auto& [key, count] : windows[2]) {
    const size_t at = key.find("discrete_laplace");
    if (at == std::string::npos) continue;
    const std::string total = key.substr(0, at) + "cumulative_sum";
    if (!windows[2].count(total)) continue;  // time-bucket queries have no totals
    int64_t sum = 0;
    for (const auto& w : windows) sum += w.at(key);
    EXPECT_EQ(windows[2].at(total), sum) << total;
    ++checked;
  }
  EXPECT_EQ(checked, 12u);  // vehicles_by_engine, touch_vehicles_by_engine (4 each), trips_by_seats (4)
}

}  // namespace
}  // namespace vanon::service
