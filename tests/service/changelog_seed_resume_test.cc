// A seed of the state changelog from local state that stops midway (real
// binaries on the mock cluster). One `vanon run` releases a fleet with the
// changelog off; the same instance restarts with it on, seeding in
// transactions of 25 records, and is killed after its second committed
// transaction (VANON_FAULT_POINT=changelog.mid_seed@2): the changelog holds
// the seeding mark and a prefix of the state. An instance with an empty
// state dir that gets the partition then must refuse it (exit 1) rather than
// take the prefix for the partition's state. The seeding instance's next
// start finishes the seed: the mark is gone and the changelog holds every
// record of local state. Then the partition moves to the instance with the
// empty state dir, which restores it. The output must show every share, input
// event and DP draw published once and each vehicle under one signature.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "instance_phase.h"
#include "lifecycle_support.h"
#include "output_audit.h"
#include "service/collector/changelog_writer.h"
#include "service/store/record_names.h"
#include "test_support.h"
#include "topic_reader.h"
#include "vanon/seal/record_sealer.h"
#include "vanon/state/state_store.h"

namespace vanon::service {
namespace {

using testing::InstanceOptions;
using testing::ScrapeMetric;

// One partition: an instance that gets a partition refuses the first one it
// cannot take, so with more partitions the refusal this test expects could
// be another partition's (one with no changelog at all).
constexpr int kInputPartitions = 1;
constexpr int32_t kPartition = 0;
constexpr const char* kSmallSeedTransactions = "state.changelog.seed_transaction_records=25";

// The partition's changelog as compaction leaves it (the last record of a
// key wins, a tombstone removes it), values opened: changelog key -> value.
std::map<std::string, std::string> LiveChangelog(const std::string& bootstrap) {
  seal::RecordSealer sealer(testing::TestStateKeys());
  std::map<std::string, std::string> sealed;
  for (const testing::TopicRecord& r : testing::ReadTopic(bootstrap, testing::kLifecycleChangelog)) {
    if (r.partition != kPartition) continue;
    if (r.value.empty()) {
      sealed.erase(r.key);
    } else {
      sealed[r.key] = r.value;
    }
  }
  std::map<std::string, std::string> live;
  for (const auto& [k, v] : sealed) {
    seal::Opened o = sealer.Open({testing::kLifecycleChangelog, kPartition, k}, v);
    live[k] = o.status == seal::OpenStatus::kOk ? o.plaintext : "(does not open)";
  }
  return live;
}

// Local state's records of the partition that belong in the changelog (all
// but the restorer's local offset mark): changelog key -> value.
std::map<std::string, std::string> LocalRecords(const std::string& state_dir) {
  auto store = state::StateStore::Open(state_dir);
  const std::string offset_mark = state::MetaRecordKey(kPartition, kChangelogOffsetMeta);
  std::map<std::string, std::string> local;
  store->VisitPartition(kPartition, [&](const state::StateChange& c) {
    if (c.family != state::StateFamily::kMeta || c.key != offset_mark) local[ChangelogKey(kPartition, c)] = *c.value;
    return true;
  });
  return local;
}

std::string SeedingMarkKey() {
  return ChangelogKey(kPartition, {state::StateFamily::kMeta, state::MetaRecordKey(kPartition, kSeedingMeta), {}});
}

// Local records the changelog lacks or holds with another value, each as
// its family code and (for meta records, whose keys are names) its key.
std::vector<std::string> MissingFromChangelog(const std::map<std::string, std::string>& local,
                                              const std::map<std::string, std::string>& changelog) {
  std::vector<std::string> missing;
  for (const auto& [k, v] : local) {
    auto it = changelog.find(k);
    if (it != changelog.end() && it->second == v) continue;
    int32_t partition = 0;
    state::StateChange c;
    DecodeChangelogKey(k, &partition, &c);
    std::string what = "family " + std::to_string(static_cast<int>(c.family));
    if (c.family == state::StateFamily::kMeta) what += " " + c.key.substr(0, c.key.find('/'));
    missing.push_back(what + (it == changelog.end() ? " (absent)" : " (other value)"));
  }
  return missing;
}

std::string Join(const std::vector<std::string>& v) {
  std::string out = std::to_string(v.size()) + ":";
  for (size_t i = 0; i < v.size() && i < 10; ++i) out += " " + v[i] + ";";
  return out;
}

TEST(ChangelogUpgrade, SeedStoppedMidwayIsFinishedByTheNextStartAndRepublishesNothing) {
  testing::LifecycleRig rig(kInputPartitions);
  ASSERT_FALSE(rig.bootstrap.empty());

  // 1. Without the changelog: a few releases.
  InstanceOptions a = rig.Instance("seed-a", rig.state_a, /*changelog=*/false);
  rig.feed.Produce(rig.bootstrap, 2000);
  std::unique_ptr<testing::Subprocess> run;
  ASSERT_NO_FATAL_FAILURE(testing::RunUntilReleased(a, kInputPartitions, 3, &run));

  // 2. The changelog on: the seed at start-up dies after two transactions.
  a.changelog = true;
  a.port = testing::FreePort();
  a.sets = {kSmallSeedTransactions};
  a.env = {"VANON_FAULT_POINT=changelog.mid_seed@2"};
  run = testing::StartInstance(a);
  ASSERT_EQ(run->Wait(120), 128 + SIGKILL) << "the seed was not killed midway\n" << run->Output();
  ASSERT_NE(run->Output().find("killing at changelog.mid_seed"), std::string::npos) << run->Output();
  {
    const std::map<std::string, std::string> local = LocalRecords(rig.state_a.path());
    const std::map<std::string, std::string> changelog = LiveChangelog(rig.bootstrap);
    ASSERT_EQ(changelog.count(SeedingMarkKey()), 1u) << "positive control: the seeding mark is in the changelog";
    EXPECT_EQ(changelog.size(), 50u) << "two transactions of 25 records committed";
    EXPECT_GT(local.size(), 75u) << "positive control: the seed needs more than three transactions";
    EXPECT_FALSE(MissingFromChangelog(local, changelog).empty()) << "positive control: the seed stopped midway";
  }

  // 3. An instance without the state refuses the partition while the seed
  // is unfinished, rather than take the prefix for its state.
  InstanceOptions b = rig.Instance("seed-b", rig.state_b, /*changelog=*/true);
  auto early = testing::StartInstance(b);
  ASSERT_EQ(early->Wait(120), 1) << "an instance took an unfinished seed for the partition's state\n"
                                 << early->Output();
  EXPECT_NE(early->Output().find("holds an unfinished copy"), std::string::npos) << early->Output();

  // 4. The seeding instance's next start finishes the seed.
  a.port = testing::FreePort();
  a.env = {};
  rig.feed.Produce(rig.bootstrap, 2000);
  ASSERT_NO_FATAL_FAILURE(testing::RunUntilReleased(a, kInputPartitions, 2, &run, [&] {
    EXPECT_EQ(ScrapeMetric(a.port, "vanon_state_restores_total{outcome=\"restored\"}"), 0)
        << "the instance replaced its own state\n"
        << run->Output();
    EXPECT_EQ(ScrapeMetric(a.port, "vanon_state_restores_total{outcome=\"seeded\"}"), kInputPartitions)
        << "positive control: the seed was resumed\n"
        << run->Output();
  }));
  const std::string resumed_log = run->Output();
  {
    std::map<std::string, std::string> local = LocalRecords(rig.state_a.path());
    // The stop checkpoints the clock and progress locally only (a new owner
    // reads the input again from the last release's offset).
    for (const char* name : {kClockMeta, "progress"}) {
      local.erase(ChangelogKey(kPartition, {state::StateFamily::kMeta, state::MetaRecordKey(kPartition, name), {}}));
    }
    const std::map<std::string, std::string> changelog = LiveChangelog(rig.bootstrap);
    EXPECT_EQ(changelog.count(SeedingMarkKey()), 0u) << "the seeding mark outlived the seed";
    const std::vector<std::string> missing = MissingFromChangelog(local, changelog);
    EXPECT_TRUE(missing.empty()) << "local records the changelog lacks: " << Join(missing);
    EXPECT_GT(local.size(), 75u);
  }

  // 5. The partition moves to the instance with the empty state dir.
  b.port = testing::FreePort();
  rig.feed.Produce(rig.bootstrap, 2000);
  ASSERT_NO_FATAL_FAILURE(testing::RunUntilReleased(b, kInputPartitions, 2, &run, [&] {
    EXPECT_EQ(ScrapeMetric(b.port, "vanon_state_restores_total{outcome=\"restored\"}"), kInputPartitions)
        << "positive control: b restored the partition from the changelog";
  }));

  const testing::OutputAudit audit = testing::AuditOutputs(rig.bootstrap, rig.feed.vin_of_seq);
  std::cout << audit.Describe() << "\n";
  EXPECT_EQ(audit.shares_repeated, 0u) << "release shares published more than once";
  EXPECT_EQ(audit.group_ids_repeated, 0u);
  EXPECT_EQ(audit.events_repeated, 0u) << "input events published more than once";
  EXPECT_EQ(audit.vehicles_two_signatures, 0u) << "vehicles under a second signature";
  EXPECT_EQ(audit.dp_repeated, 0u) << "releases whose DP counts were drawn twice";
  EXPECT_EQ(audit.events_without_seq, 0u);
  EXPECT_EQ(audit.events_without_group, 0u);
  EXPECT_GT(audit.dp_keys, 0u);
  ASSERT_GT(audit.events, rig.feed.vin_of_seq.size() / 4) << "positive control: events were published";

  // Every message consumed once and accounted for, in the last owner's state.
  auto store = state::StateStore::Open(rig.state_b.path());
  const state::PartitionProgress pr = store->LoadProgress(kPartition);
  EXPECT_EQ(pr.consumed, rig.feed.total) << "every input message consumed once";
  EXPECT_EQ(pr.released + pr.suppressed + pr.late + pr.rejected_total(), pr.consumed);
  if (HasFailure() || std::getenv("VANON_TEST_SHOW_LOGS") != nullptr) {
    std::cout << resumed_log.substr(0, 30000) << "\n----\n" << run->Output().substr(0, 20000) << "\n";
  }
}

}  // namespace
}  // namespace vanon::service
