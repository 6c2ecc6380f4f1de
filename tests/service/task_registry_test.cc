// TaskRegistry against a real StateStore: a task is loaded from state when
// opened, a holder keeps a closed task valid, and reopening loads anew.
#include "service/task/task_registry.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "test_support.h"
#include "vanon/config.h"
#include "vanon/state/state_store.h"

namespace vanon::service {
namespace {

class TaskRegistryTest : public ::testing::Test {
 protected:
  TaskRegistryTest()
      : config_(config::LoadConfig(std::string(VANON_SOURCE_DIR) + "/config/demo.yaml", {"state.dir=" + dir_.path()})),
        store_(state::StateStore::Open(dir_.path())) {}

  void StoreNextOffset(int32_t partition, int64_t next_offset) {
    state::ReleaseWrite w(*store_);
    state::PartitionProgress p;
    p.next_offset = next_offset;
    w.SetProgress(partition, p);
    store_->Commit(w);
  }

  testing::TempDir dir_;
  config::Config config_;
  std::unique_ptr<state::StateStore> store_;
};

TEST_F(TaskRegistryTest, OpenLoadsFromStateOnceAndFindSeesOnlyOpenTasks) {
  StoreNextOffset(2, 40);
  TaskRegistry tasks(store_.get(), config_.privacy.epoch);
  EXPECT_EQ(tasks.Find(2), nullptr);
  EXPECT_THROW(tasks.Get(2), std::logic_error);
  PartitionTask& task = tasks.Open(2, nullptr);
  EXPECT_EQ(task.partition(), 2);
  EXPECT_EQ(task.progress().next_offset, 40);
  task.progress().next_offset = 41;  // in memory only
  StoreNextOffset(2, 50);
  EXPECT_EQ(&tasks.Open(2, nullptr), &task);  // not loaded again
  EXPECT_EQ(tasks.Get(2)->progress().next_offset, 41);
  int seen = 0;
  tasks.ForEach([&](const PartitionTask& t) {
    EXPECT_EQ(t.partition(), 2);
    ++seen;
  });
  EXPECT_EQ(seen, 1);
}

TEST_F(TaskRegistryTest, AClosedTaskStaysValidForItsHolderAndReopeningLoadsAnew) {
  StoreNextOffset(0, 7);
  TaskRegistry tasks(store_.get(), config_.privacy.epoch);
  tasks.Open(0, nullptr);
  std::shared_ptr<PartitionTask> held = tasks.Get(0);
  held->progress().next_offset = 9;
  tasks.Close({0});
  EXPECT_EQ(tasks.Find(0), nullptr);
  // The holder (a share in flight) still reaches the task it took.
  EXPECT_EQ(held->progress().next_offset, 9);
  held->progress().released += 3;
  // A reassignment loads state as stored, not the detached task.
  StoreNextOffset(0, 12);
  PartitionTask& reopened = tasks.Open(0, nullptr);
  EXPECT_NE(&reopened, held.get());
  EXPECT_EQ(reopened.progress().next_offset, 12);
  EXPECT_EQ(reopened.progress().released, 0u);
}

}  // namespace
}  // namespace vanon::service
