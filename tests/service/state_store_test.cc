#include "vanon/state/state_store.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace vanon::service {
namespace {

TEST(PartitionProgress, RoundTripsAndRejectsGarbage) {
  state::PartitionProgress p;
  p.next_offset = 1234;
  p.consumed = 1300;
  p.accepted = 1200;
  p.unknown_vin = 3;
  p.rejected["broken_json"] = 60;
  p.rejected["too_deep"] = 40;
  p.late = 7;
  p.released = 900;
  p.suppressed = 250;
  p.releases = 12;
  auto back = state::PartitionProgress::Decode(p.Encode());
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->next_offset, 1234);
  EXPECT_EQ(back->consumed, 1300u);
  EXPECT_EQ(back->accepted, 1200u);
  EXPECT_EQ(back->unknown_vin, 3u);
  EXPECT_EQ(back->rejected_total(), 100u);
  EXPECT_EQ(back->rejected.at("too_deep"), 40u);
  EXPECT_EQ(back->late, 7u);
  EXPECT_EQ(back->released, 900u);
  EXPECT_EQ(back->suppressed, 250u);
  EXPECT_EQ(back->releases, 12u);
  // A record written before the release counters existed reads as zeros.
  auto old = state::PartitionProgress::Decode("v1;next=5;consumed=6;accepted=6;unknown_vin=0;");
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->released, 0u);

  EXPECT_FALSE(state::PartitionProgress::Decode("").has_value());
  EXPECT_FALSE(state::PartitionProgress::Decode("v2;next=1;").has_value());
  EXPECT_FALSE(state::PartitionProgress::Decode("v1;next=abc;").has_value());
  EXPECT_FALSE(state::PartitionProgress::Decode("v1;consumed=-5;").has_value());
  EXPECT_FALSE(state::PartitionProgress::Decode("v1;next=5").has_value());
}

TEST(StateStore, CommitIsAtomicPerBatchAndSurvivesReopen) {
  testing::TempDir dir;
  {
    auto s = state::StateStore::Open(dir.path());
    EXPECT_EQ(s->LoadProgress(0).next_offset, -1);
    state::ReleaseWrite w(*s);
    w.PutEvent(0, 2000, 10, "b");
    w.PutEvent(0, 1000, 11, "a");
    w.PutEvent(1, 1500, 3, "c");
    state::PartitionProgress p0;
    p0.next_offset = 12;
    p0.accepted = 2;
    w.SetProgress(0, p0);
    s->Commit(w);
  }
  auto s = state::StateStore::Open(dir.path());
  EXPECT_EQ(s->LoadProgress(0).next_offset, 12);
  EXPECT_EQ(s->LoadProgress(0).accepted, 2u);
  EXPECT_EQ(s->LoadProgress(1).next_offset, -1);
  std::vector<std::string> seen;
  s->ScanEvents(0, [&](int64_t ts, int64_t off, std::string_view v) {
    seen.push_back(std::to_string(ts) + "/" + std::to_string(off) + "/" + std::string(v));
    return true;
  });
  // Ordered by event time, not by offset: releases scan an epoch as a range.
  EXPECT_EQ(seen, (std::vector<std::string>{"1000/11/a", "2000/10/b"}));
  EXPECT_EQ(s->CountEvents(1), 1u);
  EXPECT_EQ(s->CountAllEvents(), 3u);
  EXPECT_GT(s->ApproximateBytes(), 0u);
}

TEST(StateStore, ReplayingAnOffsetDoesNotDuplicate) {
  testing::TempDir dir;
  auto s = state::StateStore::Open(dir.path());
  for (int round = 0; round < 2; ++round) {
    state::ReleaseWrite w(*s);
    w.PutEvent(0, 1000, 7, "x");
    s->Commit(w);
  }
  EXPECT_EQ(s->CountEvents(0), 1u);
}

TEST(StateStore, OpenFailsWithThePath) {
  testing::TempDir dir;
  testing::WriteFile(dir.path() + "/file", "not a dir");
  try {
    state::StateStore::Open(dir.path() + "/file");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(dir.path() + "/file"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vanon::service
