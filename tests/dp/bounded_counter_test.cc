#include "vanon/dp/bounded_counter.h"

#include <gtest/gtest.h>

#include <numeric>
#include <optional>
#include <set>

#include "engine_dimension.h"

namespace vanon::dp {
namespace {

DpEvent Ev(std::string vehicle, std::string trip, std::string name, std::string engine, int64_t ts = 0) {
  return DpEvent{std::move(vehicle), std::move(trip), std::move(name), ts, {{"engine", std::move(engine)}}};
}

Dimension EventDim(std::vector<std::string> names) {
  Dimension d;
  d.kind = Dimension::Kind::kEvent;
  d.domain = std::move(names);
  return d;
}

uint64_t Total(const BoundedCounter& c) { return std::accumulate(c.counts().begin(), c.counts().end(), uint64_t{0}); }

// Acceptance: a vehicle with 10,000 events in one cell moves the true count
// by at most C.
TEST(BoundedCounter, HeavyVehicleChangesCountByAtMostC) {
  CountQuery q{"events_by_engine", CountUnit::kEvents, {EngineDimension()}, {}, {5, 2}};
  std::vector<DpEvent> others;
  for (int v = 0; v < 20; ++v) {
    for (int i = 0; i < 3; ++i) others.push_back(Ev("v" + std::to_string(v), "t", "x", v % 2 ? "EV" : "Gas"));
  }
  std::vector<DpEvent> heavy;
  for (int i = 0; i < 10'000; ++i) heavy.push_back(Ev("heavy", "t" + std::to_string(i % 50), "x", "EV"));

  BoundedCounter without(q, 0, 1000, 42);
  without.AddEvents(others);
  BoundedCounter with(q, 0, 1000, 42);
  with.AddEvents(others);
  with.AddVehicle("heavy", heavy);

  uint64_t l1 = 0;
  for (size_t i = 0; i < with.num_cells(); ++i) {
    l1 += with.CountAt(i) - without.CountAt(i);
  }
  EXPECT_EQ(l1, 5u);  // C = 5, one cell touched
  EXPECT_LE(l1, q.Sensitivity());
  EXPECT_EQ(with.stats().cut_per_cell - without.stats().cut_per_cell, 10'000u - 5u);
}

TEST(BoundedCounter, AtMostLCellsPerVehicleAndCutIsCounted) {
  CountQuery q{"by_event", CountUnit::kEvents, {EventDim({"a", "b", "c", "d"})}, {}, {2, 2}};
  std::vector<DpEvent> evs;
  for (const char* n : {"a", "b", "c", "d"}) {
    for (int i = 0; i < 3; ++i) evs.push_back(Ev("v1", "t", n, "EV"));
  }
  BoundedCounter c(q, 0, 1000, 7);
  c.AddVehicle("v1", evs);
  EXPECT_EQ(Total(c), 4u);  // 2 cells x C=2
  size_t nonzero = 0;
  for (uint64_t n : c.counts()) nonzero += n > 0;
  EXPECT_EQ(nonzero, 2u);
  EXPECT_EQ(c.stats().cut_per_cell, 4u);  // 4 cells x (3 - 2)
  EXPECT_EQ(c.stats().cut_cells, 4u);     // 2 dropped cells x 2 kept units
  EXPECT_EQ(Total(c) + c.stats().cut(), evs.size());
}

TEST(BoundedCounter, CellChoiceIsDeterministicAndKeyed) {
  CountQuery q{"by_event", CountUnit::kEvents, {EventDim({"a", "b", "c", "d", "e", "f", "g", "h"})}, {}, {1, 1}};
  std::vector<DpEvent> evs;
  for (const char* n : {"a", "b", "c", "d", "e", "f", "g", "h"}) evs.push_back(Ev("v", "t", n, "EV"));
  BoundedCounter a(q, 0, 1, 1), b(q, 0, 1, 1);
  a.AddVehicle("v", evs);
  b.AddVehicle("v", evs);
  EXPECT_EQ(a.counts(), b.counts());
  // Over several keys the kept cell is not always the same one.
  std::set<std::vector<uint64_t>> kept;
  for (uint64_t key = 0; key < 16; ++key) {
    BoundedCounter k(q, 0, 1, key);
    k.AddVehicle("v", evs);
    kept.insert(k.counts());
  }
  EXPECT_GT(kept.size(), 1u);
}

TEST(BoundedCounter, UnitsTripsAndVehicles) {
  std::vector<DpEvent> evs = {Ev("v1", "t1", "touch", "EV"), Ev("v1", "t1", "touch", "EV"),
                              Ev("v1", "t2", "touch", "EV"), Ev("v2", "t3", "touch", "Gas"),
                              Ev("v2", "t3", "other", "Gas")};
  CountQuery trips{"trips", CountUnit::kTrips, {EngineDimension()}, {{"event", "touch"}}, {10, 1}};
  BoundedCounter t(trips, 0, 1, 0);
  t.AddEvents(evs);
  EXPECT_EQ(t.counts(), (std::vector<uint64_t>{2, 1, 0}));

  CountQuery vehicles{"vehicles", CountUnit::kVehicles, {EngineDimension()}, {}, {10, 1}};
  BoundedCounter v(vehicles, 0, 1, 0);
  v.AddEvents(evs);
  EXPECT_EQ(v.counts(), (std::vector<uint64_t>{1, 1, 0}));
  EXPECT_EQ(vehicles.Sensitivity(), 1u);
  EXPECT_EQ(trips.Sensitivity(), 10u);
}

// A counter reads events through the interned values it was built with;
// copies (a DP window's counters are copied into the release that publishes
// them, and into the copy a restore reads) keep them when the original is
// gone, and count on their own.
TEST(BoundedCounter, CopiesCountOnTheirOwnAfterTheOriginalIsGone) {
  CountQuery q{"touches", CountUnit::kEvents, {EngineDimension()}, {{"event", "touch"}}, {10, 3}};
  std::vector<BoundedCounter> copies;
  {
    BoundedCounter original(q, 0, 1, 0);
    original.AddEvents(std::vector<DpEvent>{Ev("v1", "t1", "touch", "EV")});
    copies.assign(2, original);
  }
  copies[0].AddEvents(std::vector<DpEvent>{Ev("v2", "t2", "touch", "Gas"), Ev("v2", "t2", "other", "Gas"),
                                           Ev("v3", "t3", "touch", "Diesel")});
  EXPECT_EQ(copies[0].counts(), (std::vector<uint64_t>{1, 1, 0}));
  EXPECT_EQ(copies[0].stats().out_of_domain, 1u);
  EXPECT_EQ(copies[1].counts(), (std::vector<uint64_t>{1, 0, 0}));
  EXPECT_EQ(copies[1].stats().out_of_domain, 0u);
}

TEST(BoundedCounter, TimeBucketsAndOutOfDomain) {
  Dimension bucket;
  bucket.kind = Dimension::Kind::kTimeBucket;
  bucket.bucket_ms = 100;
  CountQuery q{"per_bucket", CountUnit::kEvents, {EngineDimension(), bucket}, {}, {100, 100}};
  BoundedCounter c(q, 1000, 1250, 0);  // buckets 1000, 1100, 1200
  ASSERT_EQ(c.num_cells(), 9u);
  std::vector<DpEvent> evs = {Ev("v", "t", "x", "EV", 1000),     Ev("v", "t", "x", "EV", 1150),
                              Ev("v", "t", "x", "Gas", 1249),    Ev("v", "t", "x", "Gas", 1250),
                              Ev("v", "t", "x", "Diesel", 1000), Ev("v", "t", "x", "EV", 999)};
  c.AddEvents(evs);
  EXPECT_EQ(c.stats().out_of_domain, 3u);
  EXPECT_EQ(c.CountAt(0), 1u);  // EV x 1000
  EXPECT_EQ(c.CountAt(1), 1u);  // EV x 1100
  EXPECT_EQ(c.CountAt(5), 1u);  // Gas x 1200
  EXPECT_EQ(c.CellAt(5), (Cell{{"engine", "Gas"}, {"time_bucket", "1200"}}));
}

// The sensitive dimension: listed values are cells of their own, every other
// value counts in the last cell ("other"), an event without the value in none.
TEST(BoundedCounter, SensitiveValuesOutsideTheListCountAsOther) {
  Dimension sensitive;
  sensitive.kind = Dimension::Kind::kSensitive;
  sensitive.domain = {"Radio", "Adele", "other"};
  sensitive.others_in_last = true;
  CountQuery q{"vehicles_by_artist", CountUnit::kVehicles, {sensitive}, {}, {1, 4}};
  auto play = [](std::string vehicle, std::optional<std::string> artist) {
    DpEvent e = Ev(std::move(vehicle), "t", "media", "EV");
    if (artist) e.qi.emplace_back(kSensitiveKey, *artist);
    return e;
  };
  BoundedCounter c(q, 0, 1000, 7);
  // v3 changes its value inside the release: it counts in both cells.
  c.AddEvents(std::vector<DpEvent>{play("v1", "Radio"), play("v2", "Muse"), play("v3", "Adele"), play("v3", "Queen"),
                                   play("v4", "Björk"), play("v5", std::nullopt)});
  EXPECT_EQ(c.counts(), (std::vector<uint64_t>{1, 1, 3}));
  EXPECT_EQ(c.stats().out_of_domain, 1u);
  EXPECT_EQ(c.CellAt(2), (Cell{{"sensitive", "other"}}));
  // Without others_in_last the unlisted values are dropped, as event names are.
  sensitive.others_in_last = false;
  BoundedCounter strict(CountQuery{"q", CountUnit::kVehicles, {sensitive}, {}, {1, 4}}, 0, 1000, 7);
  strict.AddEvents(std::vector<DpEvent>{play("v2", "Muse")});
  EXPECT_EQ(strict.stats().out_of_domain, 1u);
}

TEST(ValidateQuery, RejectsDataDependentOrBrokenQueries) {
  CountQuery ok{"q", CountUnit::kEvents, {EngineDimension()}, {}, {1, 1}};
  EXPECT_FALSE(ValidateQuery(ok, 1000).has_value());
  CountQuery no_domain = ok;
  no_domain.dimensions[0].domain.clear();
  EXPECT_TRUE(ValidateQuery(no_domain, 1000).has_value());
  CountQuery zero = ok;
  zero.bounds.max_cells = 0;
  EXPECT_TRUE(ValidateQuery(zero, 1000).has_value());
  CountQuery bad_filter = ok;
  bad_filter.filter = {{"speed", "1"}};
  EXPECT_TRUE(ValidateQuery(bad_filter, 1000).has_value());
  Dimension tiny;
  tiny.kind = Dimension::Kind::kTimeBucket;
  tiny.bucket_ms = 1;
  CountQuery huge{"q", CountUnit::kEvents, {tiny}, {}, {1, 1}};
  EXPECT_TRUE(ValidateQuery(huge, 10'000'000).has_value());
}

}  // namespace
}  // namespace vanon::dp
