// PartitionGuard against a real RocksDB store: the input partition count is
// written once, survives a restart, and a different count trips the guard.
#include "service/store/partition_guard.h"

#include <gtest/gtest.h>

#include "test_support.h"
#include "vanon/state/state_store.h"

namespace vanon::service {
namespace {

TEST(PartitionGuardTest, FirstStartStoresTheCount) {
  testing::TempDir dir;
  {
    auto store = state::StateStore::Open(dir.path());
    PartitionGuard g(store.get(), 4);
    EXPECT_FALSE(g.tripped());
    EXPECT_TRUE(g.Check(4));
  }
  auto store = state::StateStore::Open(dir.path());
  EXPECT_EQ(store->GetMeta(state::kStoreWideMeta, PartitionGuard::kMetaName).value_or(""), "4");
}

TEST(PartitionGuardTest, RestartWithAnotherCountTrips) {
  testing::TempDir dir;
  { PartitionGuard g(state::StateStore::Open(dir.path()).get(), 4); }
  auto store = state::StateStore::Open(dir.path());
  PartitionGuard g(store.get(), 6);
  EXPECT_TRUE(g.tripped());
  EXPECT_EQ(g.stored(), 4);
  EXPECT_NE(g.detail().find("6 partitions"), std::string::npos) << g.detail();
  // The stored count is not overwritten: the next start trips as well.
  EXPECT_EQ(store->GetMeta(state::kStoreWideMeta, PartitionGuard::kMetaName).value_or(""), "4");
}

TEST(PartitionGuardTest, ChangeWhileRunningTripsAndSticks) {
  testing::TempDir dir;
  auto store = state::StateStore::Open(dir.path());
  PartitionGuard g(store.get(), 4);
  EXPECT_TRUE(g.Check(4));
  EXPECT_FALSE(g.Check(8));
  EXPECT_TRUE(g.tripped());
  EXPECT_FALSE(g.Check(4));  // until a restart, after the runbook's fix
}

}  // namespace
}  // namespace vanon::service
