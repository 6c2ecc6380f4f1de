// The store's two ends of the state changelog: ReleaseWrite::Changes (what a
// release batch sends) and StateStore::ReplacePartition (a partition rebuilt
// from what the changelog holds). Replaying one store's changes into another
// must give the same partition state, and leave other partitions alone.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "temp_dir.h"
#include "vanon/state/state_store.h"

namespace vanon::state {
namespace {

ReleaseLogEntry Committed(uint8_t seed) {
  ReleaseLogEntry e;
  e.status = ReleaseStatus::kCommitted;
  e.seed.fill(seed);
  e.summary = "{\"type\":\"summary\"}";
  return e;
}

engine::WaitingTuple Waiting(const std::string& vehicle) {
  engine::WaitingTuple w;
  w.tuple.vehicle = vehicle;
  w.tuple.qi = {3, 1};
  w.tuple.sensitive = 2;
  w.tuple.events = 1;
  w.first_release = 7;
  return w;
}

TEST(StateChangelog, ChangesListPutsAndDeletesInOrderWithoutRangeDeletions) {
  TempDir dir;
  auto store = StateStore::Open(dir.path());
  ReleaseWrite w(*store);
  w.DeleteEventRange(1, 0, 1000);
  w.PutEvent(1, 10, 5, "event");
  w.PutSignature(1, std::string(32, 'v'), StoredSignature{{1, 2}, 7, 7});
  w.DeleteWaiting(1, std::string(32, 'w'));
  w.PutMeta(1, "dictionary", "dict");
  w.PutRelease(1, 7, Committed(9));
  std::vector<StateChange> c = w.Changes();
  ASSERT_EQ(c.size(), 5u);
  EXPECT_EQ(c[0].family, StateFamily::kEvents);
  EXPECT_EQ(c[0].value, "event");
  EXPECT_EQ(c[1].family, StateFamily::kSignatures);
  EXPECT_EQ(c[2].family, StateFamily::kWaiting);
  EXPECT_FALSE(c[2].value.has_value()) << "a delete is a tombstone";
  EXPECT_EQ(c[3].family, StateFamily::kMeta);
  EXPECT_EQ(c[3].value, "dict");
  EXPECT_EQ(c[4].family, StateFamily::kReleases);
  EXPECT_EQ(ReleaseLogEntry::Decode(*c[4].value)->seed, Committed(9).seed);
}

TEST(StateChangelog, ReplacePartitionGivesTheChangelogsStateAndKeepsOtherPartitions) {
  TempDir a_dir, b_dir;
  auto a = StateStore::Open(a_dir.path());
  auto b = StateStore::Open(b_dir.path());
  const std::string v1(32, '\x01'), v2(32, '\x02');

  // Store a: the changelog's source, two releases of partition 3.
  std::vector<StateChange> log;
  {
    ReleaseWrite w(*a);
    w.PutSignature(3, v1, StoredSignature{{1, 4}, 6, 6});
    w.PutWaiting(3, Waiting(v2));
    w.PutEvent(3, 100, 42, "waiting event");
    w.PutMeta(3, "clock", "clock-6");
    w.PutRelease(3, 6, Committed(6));
    for (StateChange& c : w.Changes()) log.push_back(std::move(c));
    a->Commit(w);
  }
  {
    ReleaseWrite w(*a);
    w.DeleteWaiting(3, v2);  // published now
    w.DeleteEvent(3, 100, 42);
    w.PutSignature(3, v2, StoredSignature{{1, 4}, 7, 7});
    w.PutMeta(3, "clock", "clock-7");
    w.PutRelease(3, 7, Committed(7));
    for (StateChange& c : w.Changes()) log.push_back(std::move(c));
    a->Commit(w);
  }
  // Compaction: last value per key, tombstones remove.
  std::vector<StateChange> compacted;
  for (const StateChange& c : log) {
    auto same = [&](const StateChange& x) { return x.family == c.family && x.key == c.key; };
    std::erase_if(compacted, same);
    if (c.value) compacted.push_back(c);
  }

  // Store b: stale state of partition 3, and partition 4 which must stay.
  {
    ReleaseWrite w(*b);
    w.PutSignature(3, v1, StoredSignature{{2, 5}, 1, 1});  // a different, older signature
    w.PutWaiting(3, Waiting(v1));
    w.PutEvent(3, 50, 1, "stale event");
    w.PutMeta(3, "dictionary", "stale");
    w.PutRelease(3, 1, Committed(1));
    w.PutSignature(4, v1, StoredSignature{{3, 6}, 1, 1});
    w.PutMeta(4, "clock", "clock-4");
    b->Commit(w);
  }
  b->ReplacePartition(3, compacted);

  auto sigs = b->GetSignatures(3, {v1, v2});
  ASSERT_TRUE(sigs[0] && sigs[1]);
  EXPECT_EQ(sigs[0]->values, (engine::Signature{1, 4}));
  EXPECT_EQ(sigs[1]->first_release, 7);
  EXPECT_TRUE(b->LoadWaiting(3).empty());
  EXPECT_EQ(b->CountEvents(3), 0u);
  EXPECT_EQ(b->GetMeta(3, "clock"), "clock-7");
  EXPECT_FALSE(b->GetMeta(3, "dictionary").has_value()) << "stale meta of the partition is dropped";
  EXPECT_FALSE(b->GetRelease(3, 1).has_value());
  ASSERT_TRUE(b->GetRelease(3, 7).has_value());
  EXPECT_EQ(b->GetRelease(3, 7)->seed, Committed(7).seed);
  // Partition 4 untouched.
  auto other = b->GetSignatures(4, {v1});
  ASSERT_TRUE(other[0]);
  EXPECT_EQ(other[0]->values, (engine::Signature{3, 6}));
  EXPECT_EQ(b->GetMeta(4, "clock"), "clock-4");
}

engine::ValueWindow WindowWith(engine::SensitiveId value, uint64_t epoch) {
  engine::ValueWindow w;
  engine::WindowParams params;
  params.epochs = 3;
  w.Advance(epoch, {{value, 2}}, params);
  return w;
}

// Value windows are state like signatures: sent by a release batch, and
// restored with the partition.
TEST(StateChangelog, ValueWindowsTravelWithThePartition) {
  TempDir a_dir, b_dir;
  auto a = StateStore::Open(a_dir.path());
  auto b = StateStore::Open(b_dir.path());
  const std::string v1(32, '\x01'), v2(32, '\x02');
  ReleaseWrite w(*a);
  w.PutWindow(3, v1, WindowWith(4, 9));
  w.DeleteWindow(3, v2);
  const std::vector<StateChange> log = w.Changes();
  a->Commit(w);
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0].family, StateFamily::kWindows);
  EXPECT_FALSE(log[1].value.has_value());
  {
    ReleaseWrite stale(*b);
    stale.PutWindow(3, v2, WindowWith(1, 2));  // dropped by the restore
    b->Commit(stale);
  }
  b->ReplacePartition(3, {log[0]});
  const auto got = b->GetWindows(3, {v1, v2});
  ASSERT_TRUE(got[0].has_value());
  EXPECT_EQ(got[0]->parts(), WindowWith(4, 9).parts());
  EXPECT_FALSE(got[1].has_value());
  size_t scanned = 0;
  a->ScanWindows(3, [&](std::string_view vehicle, const engine::ValueWindow& window) {
    EXPECT_EQ(vehicle, v1);
    EXPECT_EQ(window.advanced(), 9u);
    return ++scanned > 0;
  });
  EXPECT_EQ(scanned, 1u);
}

TEST(StateChangelog, ProgressKeepsReplayUntil) {
  PartitionProgress p;
  p.next_offset = 10;
  p.replay_until = 25;
  std::optional<PartitionProgress> back = PartitionProgress::Decode(p.Encode());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->next_offset, 10);
  EXPECT_EQ(back->replay_until, 25);
  PartitionProgress none;
  EXPECT_EQ(none.Encode().find("replay_until"), std::string::npos) << "old records keep their encoding";
  EXPECT_EQ(PartitionProgress::Decode(none.Encode())->replay_until, -1);
}

}  // namespace
}  // namespace vanon::state
