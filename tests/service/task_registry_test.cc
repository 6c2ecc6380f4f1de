// TaskRegistry against a real StateStore: a task is loaded from state when
// opened, a holder keeps a closed task valid, and reopening loads anew.
#include "service/task/task_registry.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "test_support.h"
#include "vanon/config.h"
#include "vanon/ingest/buffered_event.h"
#include "vanon/release/event_buffer.h"
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

// The events waiting tuples own come back from both places state keeps them:
// inside their waiting records, and (a store written before records carried
// them) in the events family beside a record without events.
TEST_F(TaskRegistryTest, OpenLoadsTheEventsOfWaitingTuplesFromRecordsAndFromTheEventsFamily) {
  auto encoded = [](int64_t ts, const char* name) {
    ingest::BufferedEvent e;
    e.ts_ms = ts;
    e.event = name;
    std::string out;
    ingest::EncodeBufferedEvent(e, &out);
    return out;
  };
  engine::WaitingTuple old_layout, new_layout;
  old_layout.tuple.vehicle = std::string(32, 'a');
  new_layout.tuple.vehicle = std::string(32, 'b');
  state::ReleaseWrite w(*store_);
  w.PutWaiting(1, old_layout);
  w.PutEvent(1, 1000, 1, encoded(1000, "family"));
  w.PutEvent(1, 1500, 2, encoded(1500, "family"));
  w.PutWaiting(1, new_layout, {{2000, 3, encoded(2000, "record")}, {2500, 4, encoded(2500, "record")}});
  w.PutWaiting(2, new_layout, {{2000, 9, encoded(2000, "other partition")}});
  store_->Commit(w);

  TaskRegistry tasks(store_.get(), config_.privacy.epoch);
  PartitionTask& task = tasks.Open(1, nullptr);
  ASSERT_EQ(task.events().size(), 4u);
  std::map<int64_t, std::string> by_offset;
  for (const release::EpochList& list : task.events().Take(INT64_MAX)) {
    for (size_t i = 0; i < list.events.size(); ++i) {
      EXPECT_EQ(list.keys[i].first, list.events[i].ts_ms);
      by_offset[list.keys[i].second] = list.events[i].event;
    }
  }
  EXPECT_EQ(by_offset, (std::map<int64_t, std::string>{{1, "family"}, {2, "family"}, {3, "record"}, {4, "record"}}));
}

}  // namespace
}  // namespace vanon::service
