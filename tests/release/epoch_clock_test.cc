#include "vanon/release/epoch_clock.h"

#include <gtest/gtest.h>

namespace vanon::release {
namespace {

config::EpochConfig Cfg() {
  config::EpochConfig c;
  c.length_seconds = 60;
  c.allowed_lateness_seconds = 10;
  c.idle_timeout_seconds = 30;
  return c;
}

TEST(EpochClockTest, EpochOfFloorsIncludingNegativeTimes) {
  EpochClock c(Cfg());
  EXPECT_EQ(c.EpochOf(0), 0);
  EXPECT_EQ(c.EpochOf(59999), 0);
  EXPECT_EQ(c.EpochOf(60000), 1);
  EXPECT_EQ(c.EpochOf(-1), -1);
  EXPECT_EQ(c.EpochStart(3), 180000);
  EXPECT_EQ(c.EpochEnd(3), 240000);
}

TEST(EpochClockTest, EpochClosesWhenWatermarkPassesEndPlusLateness) {
  EpochClock c(Cfg());
  EXPECT_FALSE(c.NextClosable());
  EXPECT_EQ(c.Observe(65000, 0), Arrival::kOnTime);  // epoch 1
  EXPECT_EQ(c.watermark_ms(), 55000);
  EXPECT_EQ(c.Observe(129999, 0), Arrival::kOnTime);  // watermark 119999 < end 120000
  EXPECT_FALSE(c.NextClosable());
  EXPECT_EQ(c.Observe(130000, 0), Arrival::kOnTime);
  ASSERT_EQ(c.NextClosable(), 1);
  c.Close(1);
  EXPECT_FALSE(c.NextClosable());
  EXPECT_THROW(c.Close(2), std::logic_error);
}

TEST(EpochClockTest, EpochIsPrecomputableFromItsEndUntilItCloses) {
  EpochClock c(Cfg());
  EXPECT_FALSE(c.NextPrecomputable());
  c.Observe(65000, 0);  // epoch 1 opens
  EXPECT_FALSE(c.NextPrecomputable());
  c.Observe(119999, 0);
  EXPECT_FALSE(c.NextPrecomputable());  // event time still inside epoch 1
  c.Observe(120000, 0);
  EXPECT_EQ(c.NextPrecomputable(), 1);  // past its end, within the lateness
  EXPECT_FALSE(c.NextClosable());
  c.Observe(130000, 0);
  EXPECT_EQ(c.NextClosable(), 1);
  EXPECT_FALSE(c.NextPrecomputable());  // closable: released the usual way
  c.Close(1);
  EXPECT_FALSE(c.NextPrecomputable());  // epoch 2 ends at 180000
}

TEST(EpochClockTest, EventInClosedEpochIsLateAndChangesNothing) {
  EpochClock c(Cfg());
  c.Observe(65000, 0);
  c.Observe(130000, 0);
  c.Close(1);
  const std::string before = c.EncodeState();
  EXPECT_EQ(c.Observe(119000, 5), Arrival::kLate);
  EXPECT_EQ(c.Observe(1000, 5), Arrival::kLate);
  EXPECT_EQ(c.EncodeState(), before);
  EXPECT_EQ(c.Observe(125000, 5), Arrival::kOnTime);  // epoch 2, still open
}

TEST(EpochClockTest, OutOfOrderEventBeforeFirstEpochIsOnTimeWhileWithinLateness) {
  EpochClock c(Cfg());
  c.Observe(61000, 0);                               // epoch 1, watermark 51000
  EXPECT_EQ(c.Observe(59000, 0), Arrival::kOnTime);  // epoch 0 not yet past
  EXPECT_EQ(c.first_open_epoch(), 0);
  c.Observe(75000, 0);                            // watermark 65000 >= 60000
  EXPECT_EQ(c.Observe(1000, 0), Arrival::kLate);  // epoch 0 passed, not closed yet
  EXPECT_EQ(c.NextClosable(), 0);
}

TEST(EpochClockTest, EmptyEpochsCloseInOrder) {
  EpochClock c(Cfg());
  c.Observe(10000, 0);
  c.Observe(250000, 0);  // watermark 240000: epochs 0..3 closable
  for (int64_t e = 0; e < 4; ++e) {
    ASSERT_EQ(c.NextClosable(), e);
    c.Close(e);
  }
  EXPECT_FALSE(c.NextClosable());
}

TEST(EpochClockTest, IdlePartitionAdvancesByWallTime) {
  EpochClock c(Cfg());
  c.Observe(65000, 1000000);  // watermark 55000
  c.AdvanceIdle(1000000 + 29999);
  EXPECT_EQ(c.watermark_ms(), 55000);  // not idle yet
  c.AdvanceIdle(1000000 + 30000);
  EXPECT_EQ(c.watermark_ms(), 85000);
  EXPECT_FALSE(c.NextClosable());  // epoch 1 ends at 120000
  c.AdvanceIdle(1000000 + 65000);
  EXPECT_EQ(c.NextClosable(), 1);
  c.AdvanceIdle(0);  // wall clock jumped back: watermark never decreases
  EXPECT_EQ(c.watermark_ms(), 120000);
}

TEST(EpochClockTest, DowntimeBeforeResumeIsNotIdleness) {
  // Stored at wall 1,000,000, restored after 10 minutes down: the backlog in
  // Kafka must not turn late because the service was not running.
  EpochClock before(Cfg());
  before.Observe(65000, 1000000);
  EpochClock c(Cfg());
  ASSERT_TRUE(c.DecodeState(before.EncodeState()));
  const int64_t restart = 1000000 + 600000;
  c.Resume(restart);
  c.AdvanceIdle(restart);
  EXPECT_EQ(c.watermark_ms(), 55000);
  EXPECT_EQ(c.Observe(70000, restart + 10), Arrival::kOnTime);
  // Idle from the last event after the restart: advances again.
  c.AdvanceIdle(restart + 10 + 30000);
  EXPECT_EQ(c.watermark_ms(), 90000);
  // Without Resume the same clock would have jumped by the downtime.
  EpochClock stale(Cfg());
  ASSERT_TRUE(stale.DecodeState(before.EncodeState()));
  stale.AdvanceIdle(restart);
  EXPECT_EQ(stale.watermark_ms(), 65000 + 600000 - 10000);
}

TEST(EpochClockTest, IdleWithoutAnyEventDoesNothing) {
  EpochClock c(Cfg());
  c.AdvanceIdle(1'000'000'000);
  EXPECT_FALSE(c.NextClosable());
  EXPECT_FALSE(c.first_open_epoch());
}

TEST(EpochClockTest, StateRoundTripsAndRejectsGarbage) {
  EpochClock a(Cfg());
  a.Observe(65000, 7);
  a.Observe(200000, 9);
  a.Close(1);
  EpochClock b(Cfg());
  ASSERT_TRUE(b.DecodeState(a.EncodeState()));
  EXPECT_EQ(b.EncodeState(), a.EncodeState());
  EXPECT_EQ(b.NextClosable(), 2);
  EXPECT_EQ(b.Observe(110000, 10), Arrival::kLate);

  EpochClock fresh(Cfg());
  const std::string empty = fresh.EncodeState();
  EXPECT_FALSE(b.DecodeState(""));
  EXPECT_FALSE(b.DecodeState(a.EncodeState().substr(1)));
  std::string bad = a.EncodeState();
  bad[0] = 9;
  EXPECT_FALSE(b.DecodeState(bad));
  EXPECT_EQ(b.NextClosable(), 2);  // unchanged by failures
  ASSERT_TRUE(b.DecodeState(empty));
  EXPECT_FALSE(b.first_open_epoch());
}

// After a restore the input is read again from an earlier offset: the
// events of the open epoch must be on time again, closed epochs stay closed.
TEST(EpochClockTest, RewindToFirstOpenReopensOnlyOpenEpochs) {
  EpochClock c(Cfg());
  EXPECT_EQ(c.Observe(65000, 0), Arrival::kOnTime);   // epoch 1
  EXPECT_EQ(c.Observe(195000, 0), Arrival::kOnTime);  // epoch 3: watermark 185000
  ASSERT_EQ(c.NextClosable(), 1);
  c.Close(1);
  ASSERT_EQ(c.NextClosable(), 2);
  c.Close(2);
  EXPECT_EQ(c.first_open_epoch(), 3);
  // The previous owner read on: a watermark past the end of epoch 3 makes
  // epoch 3's events late, though epoch 3 is not released yet.
  EXPECT_EQ(c.Observe(255000, 0), Arrival::kOnTime);  // watermark 245000 > end of epoch 3
  EXPECT_EQ(c.Observe(190000, 0), Arrival::kLate);
  c.RewindToFirstOpen();
  EXPECT_EQ(c.watermark_ms(), 180000);
  EXPECT_EQ(c.Observe(190000, 0), Arrival::kOnTime) << "epoch 3 is open again";
  EXPECT_EQ(c.Observe(170000, 0), Arrival::kLate) << "epoch 2 stays closed";
  EXPECT_EQ(c.first_open_epoch(), 3);
  EXPECT_EQ(c.Observe(255000, 0), Arrival::kOnTime);
  EXPECT_EQ(c.watermark_ms(), 245000) << "re-read events move the watermark as before";
}

// The aggregation partition of global DP counts without any input: its clock
// starts at wall time once it waited idle_timeout, then its epochs close by
// idleness.
TEST(EpochClockTest, StartWithoutEventsStartsAtWallTimeAfterTheIdleTimeout) {
  const int64_t wall = 1'000'000;  // epoch 16 = [960000, 1020000)
  EpochClock c(Cfg());
  c.StartWithoutEvents(wall);
  c.AdvanceIdle(wall + 29'999);
  EXPECT_FALSE(c.first_open_epoch()) << "started before the idle timeout";
  c.AdvanceIdle(wall + 30'000);
  EXPECT_EQ(c.first_open_epoch(), 16);
  EXPECT_EQ(c.watermark_ms(), wall + 30'000 - 10'000);
  ASSERT_EQ(c.NextClosable(), 16);
  c.Close(16);
  EXPECT_FALSE(c.NextClosable());
  // Wall time goes on: the next epoch closes by idleness as well.
  c.AdvanceIdle(1'080'000 + 10'000);
  EXPECT_EQ(c.NextClosable(), 17);
  // Live input is on time; an event older than the start is late.
  EXPECT_EQ(c.Observe(1'085'000, 1'090'000), Arrival::kOnTime);  // epoch 18
  EXPECT_EQ(c.Observe(wall - 100'000, 1'090'000), Arrival::kLate);
  // Started is stored: a restored clock does not start again.
  EpochClock restored(Cfg());
  ASSERT_TRUE(restored.DecodeState(c.EncodeState()));
  restored.Resume(5'000'000);
  const std::string before = restored.EncodeState();
  restored.StartWithoutEvents(5'000'000);
  restored.AdvanceIdle(5'000'000 + 29'999);
  EXPECT_EQ(restored.first_open_epoch(), 17);
  EXPECT_EQ(restored.EncodeState(), before);
}

// A backlog's first event comes before the idle timeout: the clock starts in
// event time and the backlog stays on time.
TEST(EpochClockTest, StartWithoutEventsLeavesAClockWithAnEventInEventTime) {
  const int64_t wall = 1'000'000;
  EpochClock c(Cfg());
  c.StartWithoutEvents(wall);
  EXPECT_EQ(c.Observe(65'000, wall + 100), Arrival::kOnTime);  // epoch 1, long before wall time
  c.AdvanceIdle(wall + 30'000);
  EXPECT_EQ(c.watermark_ms(), 55'000) << "idle for less than the timeout since the event";
  EXPECT_EQ(c.first_open_epoch(), 1);
  EXPECT_EQ(c.Observe(70'000, wall + 200), Arrival::kOnTime);

  // A clock that already saw an event is the same with or without the call.
  EpochClock with(Cfg()), without(Cfg());
  for (EpochClock* k : {&with, &without}) k->Observe(65'000, 0);
  with.StartWithoutEvents(wall);
  for (EpochClock* k : {&with, &without}) k->AdvanceIdle(wall + 30'000);
  EXPECT_EQ(with.EncodeState(), without.EncodeState());
}

}  // namespace
}  // namespace vanon::release
