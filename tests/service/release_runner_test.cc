// ReleaseRunner on its own, against a real StateStore and the mock Kafka
// cluster: what it does with a partition's task that is closed (the
// partition revoked) while one of the task's shares is in flight, and the
// task's memory of its release state across applies and restarts.
#include "service/release/release_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "service/store/release_state_memory.h"
#include "service/task/partition_task.h"
#include "service/task/task_registry.h"
#include "release_fixture.h"
#include "test_support.h"
#include "vanon/config.h"
#include "vanon/kafka/mock_cluster.h"
#include "vanon/kafka/transactional_producer.h"
#include "vanon/release/epoch_clock.h"
#include "vanon/state/state_store.h"

namespace vanon::service {
namespace {

constexpr int64_t kEpochMs = 60000;           // config::EpochConfig's default
constexpr int64_t kBase = 1'700'000'040'000;  // an epoch boundary

class ReleaseRunnerTest : public ::testing::Test {
 protected:
  ReleaseRunnerTest()
      : bootstrap_(cluster_.Bootstrap()),
        config_(release_test::TestConfig(release_test::WriteEngineHierarchy())),
        store_(state::StateStore::Open(dir_.path())) {
    config_.kafka.bootstrap = bootstrap_;
    const config::KafkaTopics& t = config_.kafka.topics;
    for (const std::string* name : {&t.anonymized, &t.releases, &t.counts}) cluster_.CreateTopic(*name, 1);
    producer_ = std::make_unique<kafka::TransactionalProducer>(bootstrap_, "release-runner-test",
                                                               kafka::KafkaProperties{}, kafka::KafkaProperties{});
    runner_ = std::make_unique<ReleaseRunner>(config_, 0, store_.get(), producer_.get(), nullptr, OutputTopology{});
  }

  // Opens the partition's task and moves its clock past the close of its
  // first epoch (no event is buffered: the share is empty, which changes
  // nothing of what is tested here).
  static int64_t OpenWithClosableEpoch(TaskRegistry* tasks, int32_t partition) {
    release::EpochClock& clock = tasks->Open(partition, nullptr).clock();
    clock.Observe(kBase + 100, kBase + 100);
    clock.Observe(kBase + 3 * kEpochMs, kBase + 3 * kEpochMs);
    std::optional<int64_t> epoch = clock.NextClosable();
    EXPECT_TRUE(epoch.has_value());
    return epoch.value_or(0);
  }

  kafka::MockCluster cluster_{1};
  testing::TempDir dir_;
  std::string bootstrap_;
  config::Config config_;
  std::unique_ptr<state::StateStore> store_;
  std::unique_ptr<kafka::TransactionalProducer> producer_;
  std::unique_ptr<ReleaseRunner> runner_;
};

TEST_F(ReleaseRunnerTest, ATaskClosedWhileItsShareIsInFlightIsKeptAndTheNextTaskIsNotTouched) {
  TaskRegistry tasks(store_.get(), config_.privacy.epoch);
  const int64_t epoch = OpenWithClosableEpoch(&tasks, 0);
  std::weak_ptr<PartitionTask> closed = tasks.Get(0);
  runner_->Submit({{0, epoch}}, tasks);
  ASSERT_TRUE(runner_->InFlight(0));

  // Revoked while the share is in flight: the registry lets go of the task.
  tasks.Close({0});
  EXPECT_EQ(tasks.Find(0), nullptr);
  // The runner still holds it: the share gives its events back to it, not
  // to freed memory.
  ASSERT_FALSE(closed.expired());
  // The partition comes back before the share is applied: its new task is
  // loaded from state, where the release is only prepared, and its clock
  // has the epoch to close again.
  ASSERT_EQ(OpenWithClosableEpoch(&tasks, 0), epoch);
  PartitionTask& next = *tasks.Get(0);
  ASSERT_NE(&next, closed.lock().get());

  const std::vector<ReleaseOutcome> outcomes = runner_->Apply(/*wait=*/true);
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].partition, 0);
  EXPECT_EQ(outcomes[0].release, epoch);
  EXPECT_FALSE(runner_->InFlight(0));
  // The apply let go of the task the share was taken from, on this thread.
  EXPECT_TRUE(closed.expired());
  // Nothing of the share reached the task opened after the revocation: its
  // epoch is still open and its progress counts no release.
  EXPECT_EQ(next.clock().NextClosable(), std::optional<int64_t>(epoch));
  EXPECT_EQ(next.progress().releases, 0u);
  EXPECT_EQ(tasks.Get(0).get(), &next);
}

TEST_F(ReleaseRunnerTest, APrecomputedShareOfAClosedTaskGivesItsEventsBackToThatTaskOnly) {
  TaskRegistry tasks(store_.get(), config_.privacy.epoch);
  PartitionTask& task = tasks.Open(0, nullptr);
  int64_t offset = 0;
  for (ingest::BufferedEvent& e : release_test::Generate(0, 40, kBase, 7)) {
    task.clock().Observe(e.ts_ms, e.ts_ms);
    task.events().Add({e.ts_ms, offset++, std::move(e)});
  }
  const size_t buffered = task.events().size();
  // Event time past the epoch's end, within the allowed lateness.
  task.clock().Observe(kBase + kEpochMs + 1000, kBase + kEpochMs + 1000);
  const std::optional<int64_t> epoch = task.clock().NextPrecomputable();
  ASSERT_TRUE(epoch.has_value());
  std::weak_ptr<PartitionTask> closed = tasks.Get(0);
  runner_->Precompute({0}, tasks);
  EXPECT_EQ(task.events().size(), 0u);  // taken by the precomputed share
  EXPECT_FALSE(runner_->InFlight(0));   // nothing prepared

  // Revoked with the share precomputed (computing, or computed): the
  // runner still holds the task, and the partition comes back at once.
  tasks.Close({0});
  ASSERT_FALSE(closed.expired());
  const std::shared_ptr<PartitionTask> held = closed.lock();
  PartitionTask& next = tasks.Open(0, nullptr);

  runner_->DropPrecomputed();
  // The events went back to the task they were taken from, none to the
  // task opened since (it reads them again from the input), and nothing of
  // the share reached state.
  EXPECT_EQ(held->events().size(), buffered);
  EXPECT_EQ(next.events().size(), 0u);
  EXPECT_FALSE(store_->GetRelease(0, *epoch).has_value());
  EXPECT_TRUE(runner_->Apply(/*wait=*/true).empty());
  EXPECT_EQ(next.progress().releases, 0u);
}

}  // namespace
}  // namespace vanon::service

namespace vanon::service {
namespace {

// A share reads its partition's signatures and waiting tuples from the
// task's memory of them (ReleaseStateMemory), not from the store: after
// every apply, and after every restart, that memory must be exactly what a
// fresh load from the store finds, or the next share computes from a
// state that is not the durable one.
// Partitions of one epoch close a poll or two apart. A share submitted
// while the open batch is still computing and producing joins its
// transaction: otherwise it waits for a whole transaction before its own.
// The first share has thousands of events, so that its batch is surely
// still open when the second Submit, right after the first, is done; with
// an empty first share the batch could seal in the moment between the two
// calls (a Submit no longer under way, the next not yet begun).
TEST_F(ReleaseRunnerTest, ASharePreparedWhileTheBatchIsOpenJoinsItsTransaction) {
  TaskRegistry tasks(store_.get(), config_.privacy.epoch);
  const int64_t first = OpenWithClosableEpoch(&tasks, 0);
  const int64_t second = OpenWithClosableEpoch(&tasks, 1);
  int64_t offset = 0;
  for (ingest::BufferedEvent& e : release_test::Generate(0, 4000, kBase, 1)) {
    const int64_t ts = e.ts_ms;
    tasks.Get(0)->events().Add({ts, offset++, std::move(e)});
  }
  runner_->Submit({{0, first}}, tasks);
  runner_->Submit({{1, second}}, tasks);
  const std::vector<ReleaseOutcome> outcomes = runner_->Apply(/*wait=*/true);
  ASSERT_EQ(outcomes.size(), 2u);
  EXPECT_NE(outcomes[0].partition, outcomes[1].partition);
  EXPECT_GT(outcomes[0].commit_wall_ms, 0);
  EXPECT_EQ(outcomes[0].commit_wall_ms, outcomes[1].commit_wall_ms) << "the two shares committed apart";
}

TEST_F(ReleaseRunnerTest, TheTaskReleaseStateIsWhatStateHoldsAfterEveryApplyAndRestart) {
  auto tasks = std::make_unique<TaskRegistry>(store_.get(), config_.privacy.epoch);
  size_t most_signatures = 0, most_waiting = 0;
  int64_t offset = 0;
  for (int round = 0; round < 8; ++round) {
    if (round == 3 || round == 6) {  // a restart: a new runner, store and task, loaded from disk
      runner_.reset();
      tasks.reset();
      store_.reset();
      store_ = state::StateStore::Open(dir_.path());
      runner_ = std::make_unique<ReleaseRunner>(config_, 0, store_.get(), producer_.get(), nullptr, OutputTopology{});
      tasks = std::make_unique<TaskRegistry>(store_.get(), config_.privacy.epoch);
    }
    PartitionTask& task = tasks->Open(0, nullptr);
    const int64_t t0 = kBase + round * kEpochMs;
    // Vehicles come and go between epochs: some publish, some wait, some
    // signatures are refreshed, waiting tuples are published later.
    const auto active = [round](uint32_t v) { return (v + static_cast<uint32_t>(round)) % 4 != 0; };
    for (ingest::BufferedEvent& e : release_test::Generate(static_cast<uint32_t>(round % 3) * 5, 30, t0,
                                                           static_cast<uint64_t>(round) + 1, 6, active)) {
      const int64_t ts = e.ts_ms;
      task.events().Add({ts, offset++, std::move(e)});
    }
    task.clock().Observe(t0 + 100, t0 + 100);
    task.clock().Observe(t0 + 3 * kEpochMs, t0 + 3 * kEpochMs);
    const std::optional<int64_t> epoch = task.clock().NextClosable();
    ASSERT_TRUE(epoch.has_value());
    runner_->Submit({{0, *epoch}}, *tasks);
    const std::vector<ReleaseOutcome> outcomes = runner_->Apply(/*wait=*/true);
    ASSERT_EQ(outcomes.size(), 1u) << "round " << round;
    const ReleaseStateMemory& memory = tasks->Get(0)->release_state();
    EXPECT_TRUE(memory == ReleaseStateMemory::Load(*store_, 0)) << "round " << round;
    most_signatures = std::max(most_signatures, memory.signatures());
    most_waiting = std::max(most_waiting, memory.waiting());
  }
  // The comparison covered both families, not two empty ones.
  EXPECT_GT(most_signatures, 0u);
  EXPECT_GT(most_waiting, 0u);
}

}  // namespace
}  // namespace vanon::service
