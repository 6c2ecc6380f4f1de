// A partition that moves between the prepare of a release and its commit
// (real binaries on the mock cluster): instance a prepares a release, has
// produced half of its first share's events when it is killed
// (VANON_FAULT_POINT=release.mid_produce), and never commits. Instance b,
// with an empty state dir, gets the partitions and restores them from the
// changelog. a's attempt is visible to read_uncommitted readers (on the mock
// cluster, which writes no transaction markers, to every reader), so b's
// publication of that release must be the same bytes: the same groups,
// tokens and DP noise, from the same seed, which reached the changelog in
// its own transaction before a produced anything of the release.
#include <gtest/gtest.h>
#include <signal.h>

#include <iostream>

#include "fleet_feed.h"
#include "instance_phase.h"
#include "lifecycle_support.h"
#include "output_audit.h"
#include "test_support.h"

namespace vanon::service {
namespace {

using testing::InstanceOptions;
using testing::ScrapeMetric;

constexpr int kInputPartitions = 2;

TEST(PreparedReleaseMove, ReleaseRecomputedByTheNextOwnerIsTheAttemptReadersSaw) {
  testing::LifecycleRig rig(kInputPartitions);
  ASSERT_FALSE(rig.bootstrap.empty());

  // a releases a couple of epochs, then is killed inside the transaction of
  // its third release with events, half of one share's events produced.
  rig.feed.Produce(rig.bootstrap, 2000);
  InstanceOptions a = rig.Instance("move-a", rig.state_a, /*changelog=*/true);
  a.env = {"VANON_FAULT_POINT=release.mid_produce@3"};
  auto run_a = testing::StartInstance(a);
  testing::WaitFor(20, [&] { return ScrapeMetric(a.port, "vanon_releases_total") >= 2; });
  rig.feed.Produce(rig.bootstrap, 2000);
  ASSERT_EQ(run_a->Wait(120), 128 + SIGKILL) << "a was not killed inside a transaction\n" << run_a->Output();
  ASSERT_NE(run_a->Output().find("killing at release.mid_produce"), std::string::npos) << run_a->Output();

  // b takes every partition once a's session has expired.
  InstanceOptions b = rig.Instance("move-b", rig.state_b, /*changelog=*/true);
  auto run_b = testing::StartInstance(b);
  ASSERT_TRUE(testing::WaitFor(90, [&] {
    return ScrapeMetric(b.port, "vanon_partitions_assigned") == kInputPartitions && testing::Settled(b.port);
  })) << run_b->Output();
  rig.feed.Produce(rig.bootstrap, 1000);
  ASSERT_NO_FATAL_FAILURE(testing::FinishPhase(*run_b, 60, [&] { return testing::Settled(b.port); }));
  EXPECT_NE(run_b->Output().find("was prepared by the previous owner; it is resumed with its seed"), std::string::npos)
      << "positive control: b resumed the release a prepared\n"
      << run_b->Output();

  const testing::OutputAudit audit =
      testing::AuditOutputs(rig.bootstrap, rig.feed.vin_of_seq, /*read_uncommitted=*/true);
  std::cout << audit.Describe() << "\n";
  EXPECT_GT(audit.events_repeated, 0u) << "positive control: a's interrupted attempt is visible";
  EXPECT_EQ(audit.events_differing, 0u) << "events published under two different attempts";
  EXPECT_EQ(audit.shares_differing, 0u) << "release shares published twice with different content";
  EXPECT_EQ(audit.dp_differing, 0u) << "DP counts of a release drawn twice";
  EXPECT_EQ(audit.vehicles_two_signatures, 0u);
  EXPECT_EQ(audit.events_without_seq, 0u);
  EXPECT_EQ(audit.events_without_group, 0u) << "events of an attempt whose groups were published otherwise or never";
  // A quarter: what is out depends on how many epochs closed in time and on
  // what the first releases of a new fleet suppress (2,700 of 5,000 measured).
  ASSERT_GT(audit.events, rig.feed.vin_of_seq.size() / 4) << "positive control: events were published";
  if (HasFailure()) std::cout << run_a->Output().substr(0, 30000) << "\n----\n" << run_b->Output().substr(0, 30000);
}

}  // namespace
}  // namespace vanon::service
