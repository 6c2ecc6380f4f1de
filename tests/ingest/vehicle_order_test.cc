#include "vanon/ingest/vehicle_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace vanon::ingest {
namespace {

// Events over a few vehicles, some of which share their first 8 key bytes
// (so the fallback to the whole key is exercised), with repeated times.
std::vector<BufferedEvent> MixedEvents(uint32_t seed, bool shared_prefixes = true) {
  std::mt19937 rng(seed);
  std::vector<HmacToken> vehicles(12);
  for (size_t v = 0; v < vehicles.size(); ++v) {
    for (auto& b : vehicles[v]) b = static_cast<uint8_t>(rng());
    if (shared_prefixes && v % 3 == 1) {  // same 8-byte prefix as its predecessor, different tail
      std::copy_n(vehicles[v - 1].begin(), 8, vehicles[v].begin());
    }
  }
  std::vector<BufferedEvent> events(500);
  for (BufferedEvent& e : events) {
    e.vehicle_key = vehicles[rng() % vehicles.size()];
    e.ts_ms = static_cast<int64_t>(rng() % 20);
  }
  return events;
}

std::vector<uint32_t> Reference(const std::vector<BufferedEvent>& events, bool by_time) {
  std::vector<uint32_t> order(events.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (events[a].vehicle_key != events[b].vehicle_key) return events[a].vehicle_key < events[b].vehicle_key;
    return by_time && events[a].ts_ms < events[b].ts_ms;
  });
  return order;
}

TEST(VehicleOrder, EqualsStableSortByVehicle) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    const std::vector<BufferedEvent> events = MixedEvents(seed);
    EXPECT_EQ(RunsByVehicle(events, false).order, Reference(events, false)) << "seed " << seed;
  }
}

TEST(VehicleOrder, EqualsStableSortByVehicleThenTime) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    const std::vector<BufferedEvent> events = MixedEvents(seed);
    EXPECT_EQ(RunsByVehicle(events, true).order, Reference(events, true)) << "seed " << seed;
  }
}

// A run ends exactly where the key changes along the order, and the runs
// cover it: one per distinct vehicle.
TEST(VehicleOrder, RunsEndWhereTheVehicleChanges) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    for (bool by_time : {false, true}) {
      const std::vector<BufferedEvent> events = MixedEvents(seed);
      const VehicleRuns runs = RunsByVehicle(events, by_time);
      ASSERT_EQ(runs.order, Reference(events, by_time)) << "seed " << seed;
      std::vector<uint32_t> expected;
      for (uint32_t i = 1; i <= runs.order.size(); ++i) {
        if (i == runs.order.size() || events[runs.order[i]].vehicle_key != events[runs.order[i - 1]].vehicle_key) {
          expected.push_back(i);
        }
      }
      EXPECT_EQ(runs.ends, expected) << "seed " << seed;
    }
  }
}

TEST(VehicleOrder, NoEventsNoRuns) {
  const VehicleRuns runs = RunsByVehicle({}, true);
  EXPECT_TRUE(runs.order.empty());
  EXPECT_TRUE(runs.ends.empty());
}

// Without shared prefixes the order comes from the inline keys alone.
TEST(VehicleOrder, EqualsStableSortWhenNoPrefixIsShared) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    const std::vector<BufferedEvent> events = MixedEvents(seed, /*shared_prefixes=*/false);
    EXPECT_EQ(RunsByVehicle(events, false).order, Reference(events, false)) << "seed " << seed;
    EXPECT_EQ(RunsByVehicle(events, true).order, Reference(events, true)) << "seed " << seed;
  }
}

TEST(VehicleOrder, SharedPrefixStillSeparatesVehicles) {
  std::vector<BufferedEvent> events(3);
  events[0].vehicle_key.fill(7);
  events[1].vehicle_key.fill(7);
  events[1].vehicle_key[31] = 1;  // smaller in the last byte only
  events[2].vehicle_key.fill(7);
  EXPECT_EQ(RunsByVehicle(events, false).order, (std::vector<uint32_t>{1, 0, 2}));
}

// A share's size: thousands of vehicles (the grouping table grows several
// times), events of a vehicle out of time order now and then.
TEST(VehicleOrder, EqualsStableSortOverThousandsOfVehicles) {
  std::mt19937 rng(3);
  std::vector<HmacToken> vehicles(5000);
  for (HmacToken& k : vehicles) {
    for (auto& b : k) b = static_cast<uint8_t>(rng());
  }
  std::vector<BufferedEvent> events(40000);
  for (size_t i = 0; i < events.size(); ++i) {
    events[i].vehicle_key = vehicles[rng() % vehicles.size()];
    events[i].ts_ms = static_cast<int64_t>(i) - static_cast<int64_t>(rng() % 3 == 0 ? rng() % 5000 : 0);
  }
  EXPECT_EQ(RunsByVehicle(events, false).order, Reference(events, false));
  EXPECT_EQ(RunsByVehicle(events, true).order, Reference(events, true));
}

TEST(VehicleOrder, Empty) { EXPECT_TRUE(RunsByVehicle({}, true).order.empty()); }

}  // namespace
}  // namespace vanon::ingest
