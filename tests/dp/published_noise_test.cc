// Acceptance: no published count may be noiseless, and a
// window (release) is charged to the ledger once, even across a crash.
//
// "Noiseless" is tested from the outside: the same data published again with
// different randomness must give different values in every record field that
// carries a count. A cell published without noise would repeat its true
// value in every draw and fail here, whatever the code path that forgot it.

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "vanon/dp/budget_ledger.h"
#include "vanon/dp/dp_release.h"
#include "vanon/dp/tree_counter.h"

#include "engine_dimension.h"

namespace vanon::dp {
namespace {

// A count query and a KPI, so that plain counts and both halves of a ratio
// are checked.
DpPlan Plan() {
  DpPlan plan;
  plan.counts.push_back(CountQuery{"trips_by_engine", CountUnit::kTrips, {EngineDimension()}, {}, {2, 1}});
  RatioQuery kpi;
  kpi.name = "touch_share";
  kpi.numerator =
      CountQuery{"touch_trips", CountUnit::kTrips, {EngineDimension()}, {{"event", "touchscreen_used"}}, {2, 1}};
  kpi.denominator = CountQuery{"trips", CountUnit::kTrips, {EngineDimension()}, {}, {2, 1}};
  plan.ratios.push_back(kpi);
  plan.selection_key = 3;
  return plan;
}

// 300 vehicles, every cell far from zero so clamping cannot hide noise.
void Fill(DpRelease* release) {
  const char* engines[] = {"EV", "Gas", "Hybrid"};
  for (int v = 0; v < 300; ++v) {
    const std::string engine = engines[v % 3];
    std::vector<DpEvent> events = {{"", "t1", "trip_started", 0, {{"engine", engine}}},
                                   {"", "t1", "touchscreen_used", 0, {{"engine", engine}}},
                                   {"", "t2", "trip_started", 0, {{"engine", engine}}}};
    release->AddVehicle("v" + std::to_string(v), events);
  }
}

TEST(PublishedNoise, EveryCountDiffersAcrossRepeatedReleasesOfTheSameData) {
  const DpPlan plan = Plan();
  DpRelease release(plan, 7, 0, 60'000);
  Fill(&release);
  constexpr int kDraws = 40;
  // Per record: the values seen for its count (or numerator, denominator).
  std::vector<std::set<int64_t>> counts, numerators, denominators;
  for (int draw = 0; draw < kDraws; ++draw) {
    SeededRandomSource rng(1000 + draw);
    const DpReleaseResult r = *release.Publish(*Epsilon::Parse("1"), rng);
    counts.resize(r.records.size());
    numerators.resize(r.records.size());
    denominators.resize(r.records.size());
    for (size_t i = 0; i < r.records.size(); ++i) {
      counts[i].insert(r.records[i].count);
      numerators[i].insert(r.records[i].numerator);
      denominators[i].insert(r.records[i].denominator);
    }
  }
  ASSERT_EQ(counts.size(), 6u);  // 3 count cells + 3 ratio cells
  for (size_t i = 0; i < counts.size(); ++i) {
    if (i < 3) {
      EXPECT_GT(counts[i].size(), 1u) << "record " << i << " repeats one value: published without noise";
    } else {
      EXPECT_GT(numerators[i].size(), 1u) << "ratio " << i << " numerator published without noise";
      EXPECT_GT(denominators[i].size(), 1u) << "ratio " << i << " denominator published without noise";
    }
  }
}

TEST(PublishedNoise, RunningTotalsDifferAcrossRandomness) {
  std::set<int64_t> totals;
  for (int draw = 0; draw < 40; ++draw) {
    SeededRandomSource rng(77 + draw);
    TreeCounter tree = *TreeCounter::Create(4, 2, *Rational::Make(1, 1));
    for (int t = 0; t < 5; ++t) tree.Add(100, rng);
    totals.insert(tree.Current());
  }
  EXPECT_GT(totals.size(), 1u) << "running total published without noise";
}

// A crash is the process dying after the synced Put: the ledger object and
// its store are dropped without any further write, then reopened. Retrying
// the same window, at its own time or later (a replay after a long outage,
// still inside the period), must find it charged and spend nothing.
TEST(PublishedNoise, WindowIsChargedOnceAcrossCrashes) {
  constexpr int64_t kHour = 3'600'000;
  const BudgetPolicy policy{*Epsilon::Parse("1"), *Epsilon::Parse("10"), 30 * 24 * kHour};
  // Outlives each ledger object: a restart is a new ledger over the stored
  // entries (the service's RocksDB store: DpPublisherTest in tests/dp_service).
  MemoryLedgerStore persisted;
  std::string error;
  Epsilon spent_before;
  {
    LedgerStore* store = &persisted;
    ASSERT_TRUE(store) << error;
    auto ledger = BudgetLedger::Open(policy, store, &error);
    ASSERT_TRUE(ledger) << error;
    for (uint64_t w = 1; w <= 3; ++w) {
      ASSERT_EQ(ledger->TrySpend(w, w * kHour, *Epsilon::Parse("1")).outcome, SpendOutcome::kSpent);
    }
    spent_before = ledger->Status(3 * kHour).spent;
  }  // crash after window 3 was charged, before it was published
  for (int restart = 0; restart < 3; ++restart) {
    LedgerStore* store = &persisted;
    ASSERT_TRUE(store) << error;
    auto ledger = BudgetLedger::Open(policy, store, &error);
    ASSERT_TRUE(ledger) << error;
    const SpendResult again = ledger->TrySpend(3, 3 * kHour + restart * 10 * kHour, *Epsilon::Parse("1"));
    EXPECT_EQ(again.outcome, SpendOutcome::kAlreadySpent) << "restart " << restart;
    EXPECT_EQ(ledger->Status(3 * kHour).spent, spent_before) << "window 3 charged twice after restart " << restart;
  }
  // The next window is charged normally.
  LedgerStore* store = &persisted;
  auto ledger = BudgetLedger::Open(policy, store, &error);
  ASSERT_TRUE(ledger) << error;
  EXPECT_EQ(ledger->TrySpend(4, 4 * kHour, *Epsilon::Parse("1")).outcome, SpendOutcome::kSpent);
  EXPECT_EQ(ledger->Status(4 * kHour).spent, spent_before + *Epsilon::Parse("1"));
}

}  // namespace
}  // namespace vanon::dp
