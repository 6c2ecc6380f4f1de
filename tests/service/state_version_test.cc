// MigrateStateVersion against a real RocksDB store.
#include "service/store/state_version.h"

#include <gtest/gtest.h>

#include "test_support.h"
#include "vanon/state/state_store.h"

namespace vanon::service {
namespace {

TEST(StateVersionTest, StoreWithoutRecordIsVersionOneAndIsMigrated) {
  testing::TempDir dir;
  {
    auto store = state::StateStore::Open(dir.path());
    EXPECT_EQ(MigrateStateVersion(store.get()), 1);
  }
  auto store = state::StateStore::Open(dir.path());
  EXPECT_EQ(store->GetMeta(state::kStoreWideMeta, "state_version").value_or(""), std::to_string(kStateVersion));
  EXPECT_EQ(MigrateStateVersion(store.get()), kStateVersion);
}

TEST(StateVersionTest, NewerStoreIsRefused) {
  testing::TempDir dir;
  auto store = state::StateStore::Open(dir.path());
  state::ReleaseWrite w(*store);
  w.PutMeta(state::kStoreWideMeta, "state_version", std::to_string(kStateVersion + 1));
  store->Commit(w);
  EXPECT_THROW(MigrateStateVersion(store.get()), std::runtime_error);
}

}  // namespace
}  // namespace vanon::service
