// Turning the state changelog on over an existing state dir (an upgrade
// from a version without it, or state.changelog.enabled false -> true) with
// the real binaries on the mock cluster: one `vanon run` releases a fleet
// with the changelog off; the same instance restarts on the same state dir
// with it on (it must seed the changelog from its state, not wipe the state
// and read the input again); then its partitions move to a second instance
// with an empty state dir, which restores them from the changelog. The
// output, as a downstream consumer reads it, must show every share and
// every input event published once, each vehicle under one signature
// across the three phases, each release's DP counts drawn once, and every
// input message accounted for in the state the last owner holds.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "fleet_feed.h"
#include "instance_phase.h"
#include "lifecycle_support.h"
#include "output_audit.h"
#include "test_support.h"
#include "vanon/state/state_store.h"

namespace vanon::service {
namespace {

using testing::InstanceOptions;
using testing::ScrapeMetric;

constexpr int kInputPartitions = 4;

double Elapsed() {
  static const auto t0 = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(ChangelogUpgrade, EnablingTheChangelogKeepsStateAndAMovedPartitionRepublishesNothing) {
  Elapsed();
  testing::LifecycleRig rig(kInputPartitions);
  ASSERT_FALSE(rig.bootstrap.empty());
  InstanceOptions a = rig.Instance("upgrade-a", rig.state_a, /*changelog=*/false);

  // 1. Without the changelog: a few releases per partition.
  rig.feed.Produce(rig.bootstrap, 3000);
  const uint64_t phase1_last_seq = rig.feed.seq;
  std::unique_ptr<testing::Subprocess> run;
  double phase1_releases = 0;
  ASSERT_NO_FATAL_FAILURE(testing::RunUntilReleased(a, kInputPartitions, 2 * kInputPartitions, &run, [&] {
    phase1_releases = ScrapeMetric(a.port, "vanon_releases_total");
  }));
  const std::string phase1_log = run->Output();

  std::cout << "phase done at " << Elapsed() << " s\n";
  // 2. The same instance and state dir, the changelog on.
  a.changelog = true;
  a.port = testing::FreePort();
  rig.feed.Produce(rig.bootstrap, 3000);
  ASSERT_NO_FATAL_FAILURE(testing::RunUntilReleased(a, kInputPartitions, 2 * kInputPartitions, &run, [&] {
    EXPECT_EQ(ScrapeMetric(a.port, "vanon_state_restores_total{outcome=\"restored\"}"), 0)
        << "the instance replaced its own state" << run->Output();
    EXPECT_EQ(ScrapeMetric(a.port, "vanon_state_restores_total{outcome=\"seeded\"}"), kInputPartitions)
        << "positive control: the changelog was seeded from local state" << run->Output();
  }));
  const std::string phase2_log = run->Output();

  std::cout << "phase done at " << Elapsed() << " s\n";
  // 3. Every partition moves to an instance with an empty state dir.
  InstanceOptions b = rig.Instance("upgrade-b", rig.state_b, /*changelog=*/true);
  rig.feed.Produce(rig.bootstrap, 3000);
  ASSERT_NO_FATAL_FAILURE(testing::RunUntilReleased(b, kInputPartitions, 2 * kInputPartitions, &run, [&] {
    EXPECT_EQ(ScrapeMetric(b.port, "vanon_state_restores_total{outcome=\"restored\"}"), kInputPartitions)
        << "positive control: b restored every partition from the changelog";
  }));
  const std::string phase3_log = run->Output();

  std::cout << "phase done at " << Elapsed() << " s\n";
  ASSERT_EQ(testing::SumLowWatermarks(rig.bootstrap, "vehicle.events.raw", kInputPartitions), 0);
  ASSERT_EQ(testing::SumLowWatermarks(rig.bootstrap, testing::kLifecycleChangelog, kInputPartitions), 0);

  const testing::OutputAudit audit = testing::AuditOutputs(rig.bootstrap, rig.feed.vin_of_seq);
  std::cout << audit.Describe() << "\n";
  EXPECT_EQ(audit.shares_repeated, 0u) << "release shares published more than once";
  EXPECT_EQ(audit.group_ids_repeated, 0u);
  EXPECT_EQ(audit.events_repeated, 0u) << "input events published more than once";
  EXPECT_EQ(audit.vehicles_two_signatures, 0u) << "vehicles under a second signature";
  EXPECT_EQ(audit.dp_repeated, 0u) << "releases whose DP counts were drawn twice";
  EXPECT_EQ(audit.events_without_seq, 0u);
  EXPECT_EQ(audit.events_without_group, 0u) << "events of an attempt whose groups were published otherwise or never";
  EXPECT_GE(audit.shares, static_cast<size_t>(phase1_releases) + 4u * kInputPartitions)
      << "positive control: releases in every phase";
  EXPECT_GT(audit.dp_keys, 0u);
  ASSERT_GT(audit.events, rig.feed.vin_of_seq.size() / 2) << "positive control: most events published";

  // Every message consumed once and accounted for, in the last owner's state.
  auto store = state::StateStore::Open(rig.state_b.path());
  uint64_t consumed = 0, accounted = 0;
  for (int p = 0; p < kInputPartitions; ++p) {
    state::PartitionProgress pr = store->LoadProgress(p);
    consumed += pr.consumed;
    accounted += pr.released + pr.suppressed + pr.late + pr.rejected_total();
  }
  EXPECT_EQ(consumed, rig.feed.total) << "every input message consumed once";
  EXPECT_EQ(accounted, consumed) << "released + suppressed + late + rejected";
  EXPECT_GT(phase1_last_seq, 0u);
  if (HasFailure() || std::getenv("VANON_TEST_SHOW_LOGS") != nullptr) {
    std::cout << phase1_log.substr(0, 20000) << "\n----\n"
              << phase2_log.substr(0, 40000) << "\n----\n"
              << phase3_log.substr(0, 20000) << "\n";
  }
}

}  // namespace
}  // namespace vanon::service

namespace vanon::service {
namespace {

// The instance that holds a partition's state (released without the
// changelog) is not the first to start with it on: the instance that gets the
// partition finds neither changelog nor local state, but the partition's
// releases on the releases topic, and refuses it (exit 1) instead of
// starting it over with new signatures. Once the holder has started (and
// seeded the changelog at start-up), the other instance restores it.
TEST(ChangelogUpgrade, PartitionWhoseStateIsOnAnInstanceNotStartedYetIsRefused) {
  testing::LifecycleRig rig(kInputPartitions);
  ASSERT_FALSE(rig.bootstrap.empty());
  InstanceOptions a = rig.Instance("holder-a", rig.state_a, /*changelog=*/false);
  rig.feed.Produce(rig.bootstrap, 2000);
  std::unique_ptr<testing::Subprocess> run;
  ASSERT_NO_FATAL_FAILURE(testing::RunUntilReleased(a, kInputPartitions, 2 * kInputPartitions, &run));

  InstanceOptions b = rig.Instance("other-b", rig.state_b, /*changelog=*/true);
  auto early = testing::StartInstance(b);
  ASSERT_EQ(early->Wait(120), 1) << "an instance without the state started the partitions over\n" << early->Output();
  EXPECT_NE(early->Output().find("has published releases"), std::string::npos) << early->Output();

  a.changelog = true;
  a.port = testing::FreePort();
  rig.feed.Produce(rig.bootstrap, 1000);
  ASSERT_NO_FATAL_FAILURE(testing::RunUntilReleased(a, kInputPartitions, 0, &run));

  b.port = testing::FreePort();
  rig.feed.Produce(rig.bootstrap, 1000);
  std::unique_ptr<testing::Subprocess> late;
  ASSERT_NO_FATAL_FAILURE(testing::RunUntilReleased(b, kInputPartitions, 0, &late, [&] {
    EXPECT_EQ(ScrapeMetric(b.port, "vanon_state_restores_total{outcome=\"restored\"}"), kInputPartitions)
        << late->Output();
  }));

  const testing::OutputAudit audit = testing::AuditOutputs(rig.bootstrap, rig.feed.vin_of_seq);
  std::cout << audit.Describe() << "\n";
  EXPECT_EQ(audit.shares_repeated, 0u);
  EXPECT_EQ(audit.events_repeated, 0u);
  EXPECT_EQ(audit.vehicles_two_signatures, 0u);
  EXPECT_EQ(audit.dp_repeated, 0u);
  // A quarter: what is out depends on how many epochs closed in time and on
  // what the first releases of a new fleet suppress.
  ASSERT_GT(audit.events, rig.feed.vin_of_seq.size() / 4) << "positive control: events were published";
  if (HasFailure()) std::cout << run->Output().substr(0, 20000) << "\n----\n" << late->Output().substr(0, 20000);
}

}  // namespace
}  // namespace vanon::service
