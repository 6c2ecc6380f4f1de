// What a release's Kafka transaction relies on must survive a crash of the
// machine, not only of the process: a prepared release's seed lost after its
// transaction committed would make the restart publish a second, different
// release. The file system here loses every WAL write that was not synced.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "lost_write_fs.h"
#include "temp_dir.h"
#include "vanon/state/state_store.h"

namespace vanon::state {
namespace {

ReleaseLogEntry Prepared(uint8_t seed) {
  ReleaseLogEntry e;
  e.status = ReleaseStatus::kPrepared;
  e.seed.fill(seed);
  e.readback_offset = 42;
  return e;
}

class MachineCrashTest : public ::testing::Test {
 protected:
  // Opens, commits one prepared release with `d`, crashes, reopens.
  std::optional<ReleaseLogEntry> PrepareAndCrash(Durability d) {
    auto fs = std::make_shared<testing::LostWriteFs>();
    {
      auto store = StateStore::Open(dir_.path(), fs);
      ReleaseWrite w(*store);
      w.PutRelease(3, 7, Prepared(9));
      store->Commit(w, d);
      fs->Crash();
    }
    fs->LoseUnsyncedWrites();
    auto store = StateStore::Open(dir_.path());
    return store->GetRelease(3, 7);
  }

  TempDir dir_;
};

// The harness really loses writes: without it the test below shows nothing.
TEST_F(MachineCrashTest, UnsyncedCommitIsLost) { EXPECT_FALSE(PrepareAndCrash(Durability::kProcessCrash).has_value()); }

TEST_F(MachineCrashTest, SyncedCommitSurvives) {
  auto e = PrepareAndCrash(Durability::kMachineCrash);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->status, ReleaseStatus::kPrepared);
  EXPECT_EQ(e->seed[0], 9);
  EXPECT_EQ(e->readback_offset, 42);
}

// A synced commit makes the unsynced ones before it durable too (one WAL):
// what ingestion wrote before the prepare survives with it.
TEST_F(MachineCrashTest, SyncedCommitCarriesEarlierWrites) {
  auto fs = std::make_shared<testing::LostWriteFs>();
  {
    auto store = StateStore::Open(dir_.path(), fs);
    ReleaseWrite a(*store);
    a.PutMeta(3, "clock", "before");
    store->Commit(a);
    ReleaseWrite b(*store);
    b.PutRelease(3, 7, Prepared(1));
    store->Commit(b, Durability::kMachineCrash);
    ReleaseWrite c(*store);
    c.PutMeta(3, "clock", "after");
    store->Commit(c);
    fs->Crash();
  }
  EXPECT_GT(fs->LoseUnsyncedWrites(), 0u);  // the last commit is lost
  auto store = StateStore::Open(dir_.path());
  EXPECT_EQ(store->GetMeta(3, "clock").value_or(""), "before");
  EXPECT_TRUE(store->GetRelease(3, 7).has_value());
}

}  // namespace
}  // namespace vanon::state
