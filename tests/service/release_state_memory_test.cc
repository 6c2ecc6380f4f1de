// ReleaseStateMemory against the store it mirrors: the same delta committed
// to RocksDB (AddShareDelta) and applied to the memory leaves both holding
// the same signatures and waiting tuples, operation order within a delta
// included, and shares read them back as the store's ShareState does.
#include "service/store/release_state_memory.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "service/store/cached_share_state.h"
#include "service/store/store_share_state.h"
#include "test_support.h"
#include "vanon/state/state_store.h"

namespace vanon::service {
namespace {

std::string Vehicle(int v) {
  std::string k(ReleaseStateMemory::kVehicleKeyBytes, '\0');
  std::mt19937_64 rng(static_cast<uint64_t>(v) * 104729 + 7);
  for (char& c : k) c = static_cast<char>(rng());
  return k;
}

engine::WaitingTuple Waiting(int v, uint64_t first_release) {
  engine::WaitingTuple w;
  w.tuple.vehicle = Vehicle(v);
  w.tuple.qi = {v % 4, v % 7};
  w.tuple.sensitive = static_cast<engine::SensitiveId>(v % 5);
  w.tuple.events = 1 + static_cast<uint32_t>(v % 3);
  w.first_release = first_release;
  return w;
}

// 1 to 8 values: both fewer and more than the memory keeps inline.
engine::Signature Values(int seed) {
  engine::Signature s;
  for (int i = 0; i <= seed % 8; ++i) s.push_back(static_cast<engine::SensitiveId>(3 * i + seed % 3));
  return s;
}

void Commit(state::StateStore* store, const ShareDelta& delta) {
  state::ReleaseWrite w(*store);
  AddShareDelta(delta, &w);
  store->Commit(w);
}

TEST(ReleaseStateMemory, EqualsAFreshLoadAfterEveryDeltaOfPutsAndDeletes) {
  testing::TempDir dir;
  std::unique_ptr<state::StateStore> store = state::StateStore::Open(dir.path());
  ReleaseStateMemory memory = ReleaseStateMemory::Load(*store, 3);
  std::mt19937_64 rng(42);
  for (int64_t release = 1; release <= 40; ++release) {
    ShareDelta delta;
    delta.partition = 3;
    for (int k = 0; k < 30; ++k) {
      const int v = static_cast<int>(rng() % 60);
      switch (rng() % 4) {
        case 0:
          delta.Add(
              ShareDelta::PutSignature{Vehicle(v), {Values(v + static_cast<int>(release)), release - 1, release}});
          break;
        case 1:
          delta.Add(ShareDelta::DeleteSignature{Vehicle(v)});
          break;
        case 2:
          delta.Add(ShareDelta::PutWaiting{Waiting(v, static_cast<uint64_t>(release)),
                                           {{release * 1000, release, "event bytes the memory does not keep"}}});
          break;
        default:
          delta.Add(ShareDelta::DeleteWaiting{Vehicle(v)});
      }
    }
    // Another partition's records are none of this memory's business.
    ShareDelta other;
    other.partition = 4;
    other.Add(ShareDelta::PutSignature{Vehicle(1), {{1, 2}, 0, release}});
    Commit(store.get(), other);
    Commit(store.get(), delta);
    memory.Apply(ReleaseStateOps(delta));
    ASSERT_TRUE(memory == ReleaseStateMemory::Load(*store, 3)) << "release " << release;
  }
  EXPECT_GT(memory.signatures(), 0u);
  EXPECT_GT(memory.waiting(), 0u);
}

// The store's ShareState and the one over memory answer alike, scans in
// the same key order.
TEST(ReleaseStateMemory, ReadsAsTheStoreReads) {
  testing::TempDir dir;
  std::unique_ptr<state::StateStore> store = state::StateStore::Open(dir.path());
  ShareDelta delta;
  delta.partition = 0;
  std::vector<std::string> ask;
  for (int v = 0; v < 50; ++v) {
    if (v % 3 != 0) delta.Add(ShareDelta::PutSignature{Vehicle(v), {Values(v), v, v + 1}});
    if (v % 4 == 0) delta.Add(ShareDelta::PutWaiting{Waiting(v, 7), {}});
    ask.push_back(Vehicle(v));
  }
  Commit(store.get(), delta);
  StoreShareState from_store(store.get());
  const ReleaseStateMemory memory = ReleaseStateMemory::Load(*store, 0);
  CachedShareState from_memory(&from_store, &memory, 0);

  EXPECT_EQ(from_memory.GetSignatures(0, ask), from_store.GetSignatures(0, ask));
  auto scan = [](const ShareState& s) {
    std::vector<std::pair<std::string, state::StoredSignature>> out;
    s.ScanSignatures(0, [&](std::string_view v, const state::StoredSignature& sig) {
      out.emplace_back(std::string(v), sig);
      return true;
    });
    return out;
  };
  EXPECT_EQ(scan(from_memory), scan(from_store));
  EXPECT_EQ(scan(from_memory).size(), 33u);
  const std::vector<engine::WaitingTuple> a = from_memory.LoadWaiting(0), b = from_store.LoadWaiting(0);
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a.size(), 13u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].tuple.vehicle, b[i].tuple.vehicle);
    EXPECT_EQ(a[i].tuple.qi, b[i].tuple.qi);
    EXPECT_EQ(a[i].first_release, b[i].first_release);
  }
  EXPECT_THROW(from_memory.LoadWaiting(1), std::logic_error);
}

}  // namespace
}  // namespace vanon::service
