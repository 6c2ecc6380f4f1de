// WindowCounter: contribution bounds hold over a whole DP window
// of several epochs, and its state survives Serialize/Restore.

#include "vanon/dp/window_counter.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "vanon/dp/random_source.h"

#include "engine_dimension.h"

namespace vanon::dp {
namespace {

constexpr int64_t kHour = 3'600'000;

DpEvent Ev(const std::string& trip, const std::string& engine, int64_t ts = 0) {
  return {"", trip, "trip_started", ts, {{"engine", engine}}};
}

TEST(WindowCounter, VehicleCountsOncePerWindowAcrossEpochs) {
  WindowCounter w(CountQuery{"vehicles", CountUnit::kVehicles, {EngineDimension()}, {}, {1, 1}}, 0, kHour, 5);
  for (int epoch = 0; epoch < 3; ++epoch) {
    std::vector<DpEvent> events = {Ev("t", "EV")};
    w.AddVehicle("v1", events);
  }
  EXPECT_EQ(w.counter().CountAt(0), 1u);  // per-epoch counting would give 3
  EXPECT_EQ(w.counter().stats().vehicles, 1u);
}

TEST(WindowCounter, PerCellBoundAndDistinctTripsHoldOverTheWindow) {
  WindowCounter events(CountQuery{"events", CountUnit::kEvents, {EngineDimension()}, {}, {2, 1}}, 0, kHour, 5);
  WindowCounter trips(CountQuery{"trips", CountUnit::kTrips, {EngineDimension()}, {}, {3, 1}}, 0, kHour, 5);
  // Trip "a" spans epochs 1 and 2; "b" and "c" follow; "d" is over C = 3.
  const std::vector<std::vector<DpEvent>> epochs = {
      {Ev("a", "Gas")}, {Ev("a", "Gas"), Ev("b", "Gas")}, {Ev("c", "Gas"), Ev("d", "Gas")}};
  for (const auto& e : epochs) {
    events.AddVehicle("v", e);
    trips.AddVehicle("v", e);
  }
  EXPECT_EQ(events.counter().CountAt(1), 2u);
  EXPECT_EQ(events.counter().stats().cut_per_cell, 3u);
  EXPECT_EQ(trips.counter().CountAt(1), 3u);  // a, b, c
  EXPECT_EQ(trips.counter().stats().cut_per_cell, 1u);
}

TEST(WindowCounter, CellBoundHoldsOverTheWindowFirstComeFirstServed) {
  WindowCounter w(CountQuery{"vehicles", CountUnit::kVehicles, {EngineDimension()}, {}, {1, 2}}, 0, kHour, 5);
  std::vector<DpEvent> e1 = {Ev("t", "Hybrid")}, e2 = {Ev("t", "EV")}, e3 = {Ev("t", "Gas")};
  w.AddVehicle("v", e1);
  w.AddVehicle("v", e2);
  w.AddVehicle("v", e3);
  EXPECT_EQ(w.counter().counts(), (std::vector<uint64_t>{1, 0, 1}));
  EXPECT_EQ(w.counter().stats().cut_cells, 1u);
}

// The property the noise relies on: leaving one vehicle out changes the
// window's count vector by at most C x L in L1, however its events spread
// over the window's epochs.
TEST(WindowCounter, OneVehicleChangesTheWindowByAtMostCTimesL) {
  const CountQuery q{"events", CountUnit::kEvents, {EngineDimension()}, {}, {2, 2}};
  const char* engines[] = {"EV", "Gas", "Hybrid"};
  SeededRandomSource rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    WindowCounter with(q, 0, kHour, 5), without(q, 0, kHour, 5);
    for (int epoch = 0; epoch < 6; ++epoch) {
      for (int v = 0; v < 20; ++v) {
        std::vector<DpEvent> e;
        const uint64_t n = rng.UniformBelow(5);
        for (uint64_t i = 0; i < n; ++i) e.push_back(Ev("t" + std::to_string(i), engines[rng.UniformBelow(3)]));
        with.AddVehicle("v" + std::to_string(v), e);
        if (v != 0) without.AddVehicle("v" + std::to_string(v), e);
      }
    }
    uint64_t l1 = 0;
    for (size_t c = 0; c < 3; ++c) {
      l1 += static_cast<uint64_t>(std::llabs(static_cast<int64_t>(with.counter().CountAt(c)) -
                                             static_cast<int64_t>(without.counter().CountAt(c))));
    }
    EXPECT_LE(l1, q.Sensitivity()) << "trial " << trial;
  }
}

TEST(WindowCounter, RestoredStateContinuesAsIfNeverSaved) {
  const CountQuery q{"trips", CountUnit::kTrips, {EngineDimension()}, {}, {2, 2}};
  WindowCounter straight(q, 0, kHour, 5), saved(q, 0, kHour, 5);
  std::vector<DpEvent> first = {Ev("a", "EV"), Ev("b", "Gas")},
                       second = {Ev("a", "EV"), Ev("c", "EV"), Ev("d", "EV"), Ev("e", "Hybrid")};
  std::string vehicle("\x00\xff\x10v", 4);  // binary keys, as HMAC tokens are
  straight.AddVehicle(vehicle, first);
  saved.AddVehicle(vehicle, first);
  WindowCounter restored(q, 0, kHour, 5);
  ASSERT_TRUE(restored.Restore(saved.Serialize()));
  straight.AddVehicle(vehicle, second);
  restored.AddVehicle(vehicle, second);
  EXPECT_EQ(restored.counter().counts(), straight.counter().counts());
  EXPECT_EQ(restored.Serialize(), straight.Serialize());
  EXPECT_EQ(straight.counter().counts(), (std::vector<uint64_t>{2, 1, 0}));  // a, c (d over C); b; e over L
  WindowCounter bad(q, 0, kHour, 5);
  EXPECT_FALSE(bad.Restore("window1 0 0 0 0 2 1 1 0"));  // wrong number of cells
}

// The incremental state: totals plus only the records of the vehicles of the
// next epoch continue exactly as the whole state does.
TEST(WindowCounter, TotalsAndTheEpochsVehiclesContinueAsTheWholeState) {
  const CountQuery q{"trips", CountUnit::kTrips, {EngineDimension()}, {}, {2, 2}};
  WindowCounter straight(q, 0, kHour, 5);
  std::vector<DpEvent> first = {Ev("a", "EV"), Ev("b", "Gas")},
                       second = {Ev("a", "EV"), Ev("c", "EV"), Ev("d", "EV"), Ev("e", "Hybrid")};
  const std::string v1("\x00\xff\x10v", 4), v2 = "w";
  straight.AddVehicle(v1, first);
  straight.AddVehicle(v2, first);
  // The next epoch has v1 only: v2's record is not read.
  WindowCounter next(q, 0, kHour, 5);
  ASSERT_TRUE(next.RestoreTotals(straight.SerializeTotals()));
  ASSERT_TRUE(next.RestoreVehicle(v1, straight.SerializeVehicle(v1)));
  straight.AddVehicle(v1, second);
  next.AddVehicle(v1, second);
  EXPECT_EQ(next.counter().counts(), straight.counter().counts());
  EXPECT_EQ(next.counter().stats().vehicles, 2u);
  EXPECT_EQ(next.counter().stats().cut_per_cell, straight.counter().stats().cut_per_cell);
  EXPECT_EQ(next.SerializeVehicle(v1), straight.SerializeVehicle(v1));
  EXPECT_EQ(next.Vehicles(), std::vector<std::string>{v1});
  EXPECT_EQ(next.SerializeVehicle(v2), "");
  EXPECT_FALSE(next.RestoreVehicle(v2, "1 7 1 0"));  // cell 7 of 3
  EXPECT_FALSE(next.RestoreTotals("wtotals1 0 0 0 0 2 1 1"));
}

}  // namespace
}  // namespace vanon::dp
