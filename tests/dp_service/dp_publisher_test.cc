#include "service/dp/dp_publisher.h"

#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <memory>
#include <set>
#include <stdexcept>
#include <string>

#include "dp_fixture.h"
#include "lost_write_fs.h"
#include "service/dp/dp_ledgers.h"
#include "service/store/record_names.h"
#include "vanon/release/seed_stream.h"
#include "vanon/state/state_store.h"

namespace vanon::service {
namespace {

using dp_test::Events;
using dp_test::kEpochMs;
using dp_test::kHmacKey;
using dp_test::SeedOf;
using dp_test::TempDir;
using dp_test::TestConfig;

constexpr int32_t kPartition = 3;

// One service's worth of state: a store and a publisher over it.
struct Service : dp_test::DpService {
  config::Config config;

  Service(const config::Config& c, const std::string& dir, std::shared_ptr<rocksdb::FileSystem> fs = nullptr)
      : DpService(c, dir, std::move(fs)), config(c) {}

  // Compute, apply and commit one release, as the runner does.
  DpPublisher::Result Release(int64_t epoch, int vehicles = 12, uint8_t seed = 7) {
    const int64_t start = epoch * kEpochMs;
    const auto events = Events(vehicles, start);
    release::SeedStream random(SeedOf(seed));
    random.NextU64();  // what the release itself drew first
    DpPublisher::Result r = dp->Compute(kPartition, epoch, start, start + kEpochMs, events, random);
    Commit(kPartition, r);
    return r;
  }

  double Gauge(const std::string& name) {
    for (const auto& family : registry.Collect()) {
      if (family.name == name) return family.metric.at(0).gauge.value;
    }
    ADD_FAILURE() << "no metric " << name;
    return -1;
  }
};

// Records one release publishes with the fixture config, computed from the
// config's domains: per-release cells of every query and KPI, plus running
// totals of the queries without a time bucket.
size_t ExpectedRecords(const config::Config& c) {
  const size_t events = c.dp.event_names.size();
  const size_t buckets = static_cast<size_t>(kEpochMs / (c.dp.time_bucket_seconds * 1000));
  const size_t engines = 4, seat_bins = 4;  // fixture hierarchy and bins
  const size_t per_release = events * buckets + engines + engines + seat_bins + engines;
  const size_t totals = engines + engines + seat_bins;
  return per_release + totals;
}

size_t CountMechanism(const std::vector<std::string>& records, const std::string& mechanism) {
  size_t n = 0;
  for (const std::string& r : records) n += r.find("\"mechanism\":\"" + mechanism + "\"") != std::string::npos;
  return n;
}

TEST(DpPublisherTest, PublishesEveryCellOfEveryQuery) {
  TempDir dir("cells");
  Service s(TestConfig(dir), dir.Sub("state"));
  const DpPublisher::Result r = s.Release(0);
  EXPECT_FALSE(r.budget_exhausted);
  EXPECT_EQ(r.records.size(), ExpectedRecords(s.config));
  EXPECT_EQ(CountMechanism(r.records, "binary_tree_discrete_laplace"), 12u);
  EXPECT_EQ(r.cells_published, r.records.size());
  for (const std::string& rec : r.records) {
    EXPECT_NE(rec.find("\"partition\":3}"), std::string::npos) << rec;
    EXPECT_EQ(rec.find("\"release\":0,"), 1u) << rec;
  }
  EXPECT_EQ(s.Gauge("vanon_dp_epsilon_budget"), 0.3);
}

// Cells of a numeric QI with decimals are its bins at the configured
// precision, labelled with exact decimals (no 2.4000000000000004).
TEST(DpPublisherTest, DecimalBinsAreCellsWithExactLabels) {
  TempDir dir("decimals");
  config::Config c = TestConfig(dir);
  c.quasi_identifiers[1].precision = 1;
  c.quasi_identifiers[1].bin_width = 0.5;
  Service s(c, dir.Sub("state"));
  const DpPublisher::Result r = s.Release(0);
  std::vector<std::string> labels;
  for (const std::string& rec : r.records) {
    if (rec.find("\"query\":\"trips_by_seats\"") == std::string::npos) continue;
    const size_t at = rec.find("\"seats\":\"");
    ASSERT_NE(at, std::string::npos) << rec;
    labels.push_back(rec.substr(at + 9, rec.find('"', at + 9) - at - 9));
  }
  // [2,2.4], [2.5,2.9], ..., [8.5,8.9], [9,9]: 15 bins per release, and the
  // running totals repeat them.
  ASSERT_EQ(labels.size(), 30u);
  const std::set<std::string> distinct(labels.begin(), labels.end());
  EXPECT_EQ(distinct.size(), 15u);
  for (const char* l : {"[2,2.4]", "[2.5,2.9]", "[8.5,8.9]", "9"}) EXPECT_EQ(distinct.count(l), 1u) << l;
  for (const std::string& l : labels) EXPECT_LE(l.size(), 9u) << l;
}

TEST(DpPublisherTest, SameStateAndSeedGiveIdenticalRecords) {
  TempDir dir("determinism");
  Service a(TestConfig(dir), dir.Sub("a"));
  Service b(TestConfig(dir), dir.Sub("b"));
  Service c(TestConfig(dir), dir.Sub("c"));
  for (int64_t epoch = 0; epoch < 2; ++epoch) {
    const auto ra = a.Release(epoch, 20, 9);
    const auto rb = b.Release(epoch, 20, 9);
    const auto rc = c.Release(epoch, 20, 10);
    ASSERT_FALSE(ra.records.empty());
    EXPECT_EQ(ra.records, rb.records);
    EXPECT_EQ(ra.meta, rb.meta);
    // The noise comes from the seed: another seed, other values.
    EXPECT_NE(ra.records, rc.records);
  }
}

TEST(DpPublisherTest, ExhaustedBudgetStopsRecordsAndSetsTheFlag) {
  TempDir dir("exhaust");
  Service s(TestConfig(dir), dir.Sub("state"));
  // Release 0 pays per_release for its counts and per_release once for the
  // running-total counters it starts; release 1 pays per_release: 0.3 total.
  const auto r0 = s.Release(0);
  EXPECT_DOUBLE_EQ(r0.status.spent.ToDouble(), 0.2);
  const auto r1 = s.Release(1);
  EXPECT_FALSE(r1.budget_exhausted);
  EXPECT_DOUBLE_EQ(r1.status.spent.ToDouble(), 0.3);
  EXPECT_EQ(s.Gauge("vanon_dp_budget_exhausted"), 0);
  EXPECT_EQ(s.Gauge("vanon_dp_epsilon_remaining"), 0);

  const auto r2 = s.Release(2);
  EXPECT_TRUE(r2.budget_exhausted);
  EXPECT_TRUE(r2.records.empty());
  EXPECT_TRUE(r2.meta.empty());
  EXPECT_NE(r2.exhausted_message.find("exhausted"), std::string::npos);
  EXPECT_TRUE(s.dp->budget_exhausted());
  EXPECT_EQ(s.Gauge("vanon_dp_budget_exhausted"), 1);
  EXPECT_EQ(s.Gauge("vanon_dp_epsilon_spent"), 0.3);
}

TEST(DpPublisherTest, RestartDoesNotRestoreBudget) {
  TempDir dir("restart");
  const config::Config config = TestConfig(dir);
  {
    Service s(config, dir.Sub("state"));
    s.Release(0);
    s.Release(1);
    ASSERT_TRUE(s.Release(2).budget_exhausted);
  }
  Service reopened(config, dir.Sub("state"));
  const auto r = reopened.Release(3);
  EXPECT_TRUE(r.budget_exhausted);
  EXPECT_TRUE(r.records.empty());
  EXPECT_DOUBLE_EQ(r.status.spent.ToDouble(), 0.3);
}

TEST(DpPublisherTest, NextPeriodPublishesAgain) {
  TempDir dir("period");
  Service s(TestConfig(dir), dir.Sub("state"));
  s.Release(0);
  s.Release(1);
  ASSERT_TRUE(s.Release(2).budget_exhausted);
  const int64_t period_epochs = 86'400'000 / kEpochMs;
  // Still inside the window of release 0 (window is (now - period, now]).
  EXPECT_TRUE(s.Release(period_epochs - 1).budget_exhausted);
  // Release 0's two charges left the window; release 1's 0.1 is still in it.
  // The running totals started at release 0 paid with one of them, so they
  // start over with a charge of their own: 0.1 + 0.1 + 0.1.
  const auto r = s.Release(period_epochs);
  EXPECT_FALSE(r.budget_exhausted);
  EXPECT_FALSE(r.records.empty());
  EXPECT_DOUBLE_EQ(r.status.spent.ToDouble(), 0.3);
  EXPECT_FALSE(s.dp->budget_exhausted());
  EXPECT_EQ(s.Gauge("vanon_dp_budget_exhausted"), 0);
}

TEST(DpPublisherTest, RecomputeAfterCrashRepublishesIdenticalValuesWithoutCharging) {
  TempDir dir("recompute");
  const config::Config config = TestConfig(dir);
  const auto events = Events(15, 0);
  DpPublisher::Result first;
  {
    Service s(config, dir.Sub("state"));
    release::SeedStream random(SeedOf(5));
    first = s.dp->Compute(kPartition, 0, 0, kEpochMs, events, random);
    // Crash: the records may or may not have been committed; apply never ran.
  }
  Service restarted(config, dir.Sub("state"));
  release::SeedStream random(SeedOf(5));
  const auto again = restarted.dp->Compute(kPartition, 0, 0, kEpochMs, events, random);
  ASSERT_FALSE(first.records.empty());
  EXPECT_EQ(again.records, first.records);
  EXPECT_EQ(again.meta, first.meta);
  EXPECT_EQ(again.status.spent, first.status.spent);  // kAlreadySpent: no second charge
}

// The same after a crash of the machine: the charge was made durable (synced)
// before Compute returned, i.e. before the records could be committed, so
// the restart neither charges again nor draws fresh noise for the counts.
TEST(DpPublisherTest, LedgerChargeSurvivesAMachineCrash) {
  TempDir dir("machine_crash");
  const config::Config config = TestConfig(dir);
  const auto events = Events(15, 0);
  DpPublisher::Result first;
  auto fs = std::make_shared<testing::LostWriteFs>();
  {
    Service s(config, dir.Sub("state"), fs);
    release::SeedStream random(SeedOf(5));
    first = s.dp->Compute(kPartition, 0, 0, kEpochMs, events, random);
    fs->Crash();  // the records committed; the machine dies before apply
  }
  fs->LoseUnsyncedWrites();
  Service restarted(config, dir.Sub("state"));
  ASSERT_TRUE(restarted.store->GetMeta(kPartition, "dp_ledger").has_value()) << "the ledger charge was lost";
  release::SeedStream random(SeedOf(5));
  const auto again = restarted.dp->Compute(kPartition, 0, 0, kEpochMs, events, random);
  ASSERT_FALSE(first.records.empty());
  EXPECT_EQ(again.records, first.records);
  EXPECT_EQ(again.status.spent, first.status.spent);
}

// The counters' horizon (1024 releases here) fits in the budget period (one
// day, 1440 epochs) only when releases follow each other. After a gap their
// one charge has left the window: they must start over with a fresh charge
// rather than keep publishing on budget the ledger no longer counts.
TEST(DpPublisherTest, RunningTotalsRestartWhenTheirChargeLeavesTheWindow) {
  TempDir dir("tree_window");
  Service s(TestConfig(dir), dir.Sub("state"));
  EXPECT_DOUBLE_EQ(s.Release(0).status.spent.ToDouble(), 0.2);  // the counts and the counters' charge
  EXPECT_DOUBLE_EQ(s.Release(1).status.spent.ToDouble(), 0.3);  // the counters go on with their charge
  const int64_t later = 2 * 86'400'000 / kEpochMs;              // two days on: both charges left the window
  const DpPublisher::Result r = s.Release(later);
  EXPECT_FALSE(r.budget_exhausted);
  EXPECT_EQ(CountMechanism(r.records, "binary_tree_discrete_laplace"), 12u);
  EXPECT_DOUBLE_EQ(r.status.spent.ToDouble(), 0.2) << "the running totals published on a charge outside the window";
  EXPECT_EQ(s.store->GetMeta(kPartition, kDpTreeChargeMeta).value_or(""),
            std::to_string(kTreeLedgerBit | static_cast<uint64_t>(later)));
}

TEST(DpPublisherTest, RunningTotalsContinueFromAppliedState) {
  TempDir dir("totals");
  config::Config config = TestConfig(dir);
  config.dp.budget_epsilon = 10;
  Service s(config, dir.Sub("state"));
  const auto r0 = s.Release(0);
  ASSERT_EQ(r0.meta.size(), 4u);  // one record per query with running totals, and their charge
  EXPECT_EQ(r0.meta[3].first, kDpTreeChargeMeta);
  EXPECT_EQ(r0.meta[0].first, "dp_tree/vehicles_by_engine");
  const auto r1 = s.Release(1);
  // The counters started at release 0 go on: release 1 pays per_release only.
  EXPECT_DOUBLE_EQ(r1.status.spent.ToDouble() - r0.status.spent.ToDouble(), 0.1);
  EXPECT_EQ(CountMechanism(r1.records, "binary_tree_discrete_laplace"), 12u);
  auto stored = s.store->GetMeta(kPartition, "dp_tree/vehicles_by_engine");
  ASSERT_TRUE(stored);
  EXPECT_EQ(*stored, r1.meta[0].second);
  // Serialized counters carry t: 2 after two releases ("tree1 levels sens num den t ...").
  EXPECT_NE(stored->find(" 2 "), std::string::npos);
}

TEST(DpPublisherTest, DisabledPublishesNothingAndWritesNoState) {
  TempDir dir("disabled");
  config::Config config = TestConfig(dir);
  config.dp.enabled = false;
  Service s(config, dir.Sub("state"));
  const auto r = s.Release(0);
  EXPECT_TRUE(r.records.empty());
  EXPECT_TRUE(r.meta.empty());
  EXPECT_FALSE(r.budget_exhausted);
  EXPECT_FALSE(s.store->GetMeta(kPartition, "dp_ledger"));
}

TEST(DpPublisherTest, RefusesDimensionsWithoutFixedDomain) {
  TempDir dir("refuse");
  prometheus::Registry registry;
  auto store = state::StateStore::Open(dir.Sub("state"));
  config::Config no_events = TestConfig(dir);
  no_events.dp.event_names.clear();
  EXPECT_THROW(DpPublisher(no_events, kHmacKey, store.get(), registry), std::invalid_argument);

  prometheus::Registry registry2;
  config::Config on_demand = TestConfig(dir);
  on_demand.quasi_identifiers[1].split = config::NumericSplit::kOnDemand;
  on_demand.quasi_identifiers[1].bin_width = 0;
  EXPECT_THROW(DpPublisher(on_demand, kHmacKey, store.get(), registry2), std::invalid_argument);
}

TEST(DpPublisherTest, PartitionsHaveSeparateLedgers) {
  TempDir dir("partitions");
  Service s(TestConfig(dir), dir.Sub("state"));
  s.Release(0);
  s.Release(1);
  ASSERT_TRUE(s.Release(2).budget_exhausted);
  // Another partition's vehicles are disjoint (parallel composition).
  const auto events = Events(5, 2 * kEpochMs);
  release::SeedStream random(SeedOf(1));
  const auto other = s.dp->Compute(kPartition + 1, 2, 2 * kEpochMs, 3 * kEpochMs, events, random);
  EXPECT_FALSE(other.budget_exhausted);
  EXPECT_FALSE(other.records.empty());
}

}  // namespace
}  // namespace vanon::service
