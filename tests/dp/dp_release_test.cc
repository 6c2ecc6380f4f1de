#include "vanon/dp/dp_release.h"

#include <gtest/gtest.h>

#include <random>

#include "vanon/dp/postprocess.h"

#include "engine_dimension.h"

namespace vanon::dp {
namespace {

DpPlan TouchscreenPlan() {
  DpPlan plan;
  plan.counts.push_back(CountQuery{"vehicles_by_engine", CountUnit::kVehicles, {EngineDimension()}, {}, {1, 1}});
  RatioQuery kpi;
  kpi.name = "touchscreen_trip_share";
  kpi.numerator =
      CountQuery{"touch_trips", CountUnit::kTrips, {EngineDimension()}, {{"event", "touchscreen_used"}}, {4, 1}};
  kpi.denominator = CountQuery{"trips", CountUnit::kTrips, {EngineDimension()}, {}, {4, 1}};
  plan.ratios.push_back(kpi);
  plan.selection_key = 9;
  return plan;
}

TEST(DpRelease, PublishesEveryCellOfEveryQueryWithItsEpsilonShare) {
  DpPlan plan = TouchscreenPlan();
  ASSERT_FALSE(ValidatePlan(plan, 1000).has_value());
  DpRelease release(plan, 42, 0, 1000);
  std::vector<DpEvent> ev = {{"v1", "t1", "trip_start", 1, {{"engine", "EV"}}},
                             {"v1", "t1", "touchscreen_used", 2, {{"engine", "EV"}}},
                             {"v1", "t2", "trip_start", 3, {{"engine", "EV"}}}};
  release.AddVehicle("v1", ev);
  SeededRandomSource rng(3);
  auto result = release.Publish(*Epsilon::Parse("0.3"), rng);
  ASSERT_TRUE(result.has_value());
  // 3 engine cells for the count query + 3 for the KPI; Hybrid has no data but is published.
  ASSERT_EQ(result->records.size(), 6u);
  EXPECT_EQ(result->records[2].cell, (Cell{{"engine", "Hybrid"}}));
  for (const DpCountRecord& r : result->records) {
    EXPECT_EQ(r.release, 42u);
    EXPECT_EQ(r.mechanism, "discrete_laplace");
  }
  EXPECT_DOUBLE_EQ(result->records[0].epsilon, 0.1);  // 0.3 over 3 measurements
  EXPECT_DOUBLE_EQ(result->records[3].epsilon, 0.2);  // a ratio uses two
  EXPECT_EQ(result->records[3].kind, DpCountRecord::Kind::kRatio);
  EXPECT_GE(result->records[3].ratio, 0.0);
  EXPECT_LE(result->records[3].ratio, 1.0);
  EXPECT_EQ(result->records[3].sensitivity, 4u);
}

TEST(DpRelease, LargeEpsilonRecoversTrueCounts) {
  DpPlan plan = TouchscreenPlan();
  DpRelease release(plan, 1, 0, 1000);
  for (int v = 0; v < 30; ++v) {
    std::vector<DpEvent> ev;
    const std::string engine = v < 20 ? "EV" : "Gas";
    for (int t = 0; t < 4; ++t) {
      const std::string trip = "v" + std::to_string(v) + "t" + std::to_string(t);
      ev.push_back({"", trip, "trip_start", 1, {{"engine", engine}}});
      if (t < 1) ev.push_back({"", trip, "touchscreen_used", 1, {{"engine", engine}}});
    }
    release.AddVehicle("v" + std::to_string(v), ev);
  }
  SeededRandomSource rng(4);
  // Epsilon 1000: scale <= 0.012, so noise is almost surely 0.
  auto result = release.Publish(*Epsilon::Parse("1000"), rng);
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->records[0].count, 20);
  EXPECT_EQ(result->records[1].count, 10);
  EXPECT_EQ(result->records[2].count, 0);
  EXPECT_DOUBLE_EQ(result->records[3].ratio, 0.25);
  EXPECT_EQ(result->records[3].denominator, 80);
  EXPECT_EQ(result->contributions_cut, 0u);
}

TEST(PostProcess, StepsAreListedOnlyWhenApplied) {
  EXPECT_TRUE(ClampCount(3).steps.empty());
  EXPECT_EQ(ClampCount(-2).value, 0);
  EXPECT_EQ(StepNames(ClampCount(-2).steps), (std::vector<std::string>{"clamp_nonnegative"}));
  PostRatio over = RatioOf(12, 10);
  EXPECT_DOUBLE_EQ(over.value, 1.0);
  EXPECT_EQ(StepNames(over.steps), (std::vector<std::string>{"clip_unit_interval"}));
  PostRatio neg = RatioOf(3, -4);
  EXPECT_DOUBLE_EQ(neg.value, 1.0);
  EXPECT_EQ(StepNames(neg.steps),
            (std::vector<std::string>{"clamp_nonnegative", "denominator_floor_one", "clip_unit_interval"}));
  EXPECT_DOUBLE_EQ(RatioOf(1, 4).value, 0.25);
}

TEST(CountRecord, JsonCarriesTheContractFields) {
  DpCountRecord r;
  r.release = 42;
  r.query = "touch\"q";
  r.cell = {{"engine", "EV"}};
  r.count = 1234;
  r.noisy = 1234;
  r.epsilon = 0.1;
  r.sensitivity = 4;
  r.mechanism = "discrete_laplace";
  r.postprocessed = {};
  EXPECT_EQ(ToJson(r),
            "{\"release\":42,\"query\":\"touch\\\"q\",\"cell\":{\"engine\":\"EV\"},\"kind\":\"count\","
            "\"value\":1234,\"epsilon\":0.1,\"sensitivity\":4,\"mechanism\":\"discrete_laplace\","
            "\"postprocessed\":[]}");
}

// A clamped count carries its unclamped value, which sums must use.
TEST(CountRecord, ClampedCountCarriesTheUnclampedValue) {
  DpCountRecord r;
  r.release = 1;
  r.query = "q";
  r.count = 0;
  r.noisy = -3;
  r.epsilon = 1;
  r.sensitivity = 4;
  r.mechanism = "discrete_laplace";
  r.postprocessed = {"clamp_nonnegative"};
  EXPECT_EQ(
      ToJson(r),
      "{\"release\":1,\"query\":\"q\",\"cell\":{},\"kind\":\"count\",\"value\":0,\"unclamped\":-3,"
      "\"epsilon\":1,\"sensitivity\":4,\"mechanism\":\"discrete_laplace\",\"postprocessed\":[\"clamp_nonnegative\"]}");
}

// Publish keeps true + noise before clamping: small cells at a small epsilon
// are clamped often, and their unclamped values average to the truth.
TEST(DpRelease, UnclampedCountsAreUnbiased) {
  DpPlan plan;
  Dimension engine;
  engine.kind = Dimension::Kind::kQi;
  engine.qi = "engine";
  engine.domain = {"EV"};
  plan.counts.push_back(CountQuery{"v", CountUnit::kVehicles, {engine}, {}, {1, 1}});
  DpRelease release(plan, 1, 0, 60'000);
  const std::vector<DpEvent> events = {{"", "t", "trip_started", 0, {{"engine", "EV"}}}};
  release.AddVehicle("a", events);
  SeededRandomSource rng(5);
  const Epsilon eps = *Epsilon::Parse("0.1");  // scale 10: clamped about half the time
  double noisy_sum = 0, clamped_sum = 0;
  int clamped = 0;
  constexpr int kTrials = 20000;
  for (int t = 0; t < kTrials; ++t) {
    const DpCountRecord r = release.Publish(eps, rng)->records[0];
    noisy_sum += double(r.noisy);
    clamped_sum += double(r.count);
    if (r.noisy != r.count) {
      ++clamped;
      EXPECT_LT(r.noisy, 0);
      EXPECT_EQ(r.count, 0);
    }
  }
  EXPECT_GT(clamped, kTrials / 4);
  // Variance of the discrete Laplace of scale 10 is about 200: the mean of
  // 20,000 draws has standard error 0.1, so 0.6 is six standard errors.
  EXPECT_NEAR(noisy_sum / kTrials, 1.0, 0.6);
  EXPECT_GT(clamped_sum / kTrials, 3.0);  // the clamped mean is biased upwards (about 4.3)
}

// DpRelease resolves each event's values once for all its counters
// (ValueIds); each counter alone looks them up by string. Both must count
// the same cells, cuts and out-of-domain events, whatever the events hold:
// values outside a domain, missing QIs, a missing sensitive value, times
// outside the epoch, filters on the event and on a QI, a QI named "event".
TEST(DpRelease, CountsWithResolvedValuesWhatEachCounterCountsAlone) {
  Dimension region{Dimension::Kind::kQi, "region", {"north", "south", "east"}, 0, false};
  Dimension region_others{Dimension::Kind::kQi, "region", {"north", "other"}, 0, true};
  Dimension engine{Dimension::Kind::kQi, "event", {"EV", "Gas"}, 0, false};  // a QI called "event"
  Dimension name{Dimension::Kind::kEvent, "", {"trip_start", "media", "charge"}, 0, false};
  Dimension sensitive{Dimension::Kind::kSensitive, "", {"jazz", "rock", "pop"}, 0, true};
  Dimension bucket{Dimension::Kind::kTimeBucket, "", {}, 250, false};
  DpPlan plan;
  plan.counts.push_back({"by_region", CountUnit::kEvents, {region}, {}, {3, 2}});
  plan.counts.push_back({"by_region_others", CountUnit::kTrips, {region_others, name}, {}, {2, 3}});
  plan.counts.push_back({"media_by_song", CountUnit::kEvents, {sensitive}, {{"event", "media"}}, {2, 1}});
  plan.counts.push_back({"south_by_time", CountUnit::kVehicles, {bucket}, {{"qi:region", "south"}}, {1, 2}});
  plan.counts.push_back({"by_engine_time", CountUnit::kEvents, {engine, bucket}, {{"qi:event", "EV"}}, {4, 2}});
  RatioQuery kpi;
  kpi.name = "media_share";
  kpi.numerator = {"media_trips", CountUnit::kTrips, {region}, {{"event", "media"}}, {2, 1}};
  kpi.denominator = {"trips", CountUnit::kTrips, {region}, {}, {2, 1}};
  plan.ratios.push_back(kpi);
  plan.selection_key = 77;
  const std::optional<std::string> invalid = ValidatePlan(plan, 1000);
  ASSERT_FALSE(invalid.has_value()) << *invalid;

  DpRelease release(plan, 5, 0, 1000);
  std::vector<BoundedCounter> alone;
  for (const CountQuery& q : plan.counts) alone.emplace_back(q, 0, 1000, plan.selection_key);
  alone.emplace_back(kpi.numerator, 0, 1000, plan.selection_key);
  alone.emplace_back(kpi.denominator, 0, 1000, plan.selection_key);

  const char* regions[] = {"north", "south", "east", "west", ""};
  const char* names[] = {"trip_start", "media", "charge", "door"};
  const char* songs[] = {"jazz", "rock", "pop", "polka"};
  std::mt19937 gen(11);
  auto pick = [&](int n) { return static_cast<int>(gen() % static_cast<unsigned>(n)); };
  for (int v = 0; v < 400; ++v) {
    std::vector<DpEvent> events;
    const int n = 1 + pick(12);
    for (int k = 0; k < n; ++k) {
      DpEvent e;
      e.trip = "t" + std::to_string(pick(3));
      e.name = names[pick(4)];
      e.ts_ms = pick(1100) - 50;
      if (pick(10) > 0) e.qi.emplace_back("region", regions[pick(5)]);
      if (pick(10) > 0) e.qi.emplace_back("event", pick(3) == 0 ? "Hybrid" : pick(2) == 0 ? "EV" : "Gas");
      if (pick(3) > 0) e.qi.emplace_back(kSensitiveKey, songs[pick(4)]);
      events.push_back(std::move(e));
    }
    const std::string vehicle = "v" + std::to_string(v);
    release.AddVehicle(vehicle, events);
    for (BoundedCounter& c : alone) c.AddVehicle(vehicle, events);
  }

  ASSERT_EQ(release.counters().size(), alone.size());
  uint64_t counted = 0;
  for (size_t i = 0; i < alone.size(); ++i) {
    const BoundedCounter& got = release.counters()[i];
    const BoundedCounter& want = alone[i];
    SCOPED_TRACE(want.query().name);
    EXPECT_EQ(got.counts(), want.counts());
    EXPECT_EQ(got.stats().cut_per_cell, want.stats().cut_per_cell);
    EXPECT_EQ(got.stats().cut_cells, want.stats().cut_cells);
    EXPECT_EQ(got.stats().out_of_domain, want.stats().out_of_domain);
    EXPECT_EQ(got.stats().vehicles, want.stats().vehicles);
    for (uint64_t c : want.counts()) counted += c;
    EXPECT_GT(want.stats().vehicles, 0u);  // every query counted something
  }
  EXPECT_GT(counted, 1000u);
}

}  // namespace
}  // namespace vanon::dp
