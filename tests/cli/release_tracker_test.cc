#include "release_tracker.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace vanon::cli {
namespace {

using Clock = ReleaseTracker::Clock;
using std::chrono::seconds;

ShareSummary Share(int64_t release, int32_t partition, int32_t partitions = 3) {
  ShareSummary s;
  s.release = release;
  s.partition = partition;
  s.partitions = partitions;
  s.groups = 10 + static_cast<uint64_t>(partition);
  s.tuples = 60;
  s.published = 50;
  s.counterfeits = 10;
  s.events = 1000;
  s.suppressed = 4;
  return s;
}

TEST(ReleaseTrackerTest, CompleteOnlyWhenEveryPartitionsSummaryArrived) {
  ReleaseTracker t(3);
  const Clock::time_point now = Clock::now();
  EXPECT_FALSE(t.Add(Share(7, 0), now));
  EXPECT_FALSE(t.Add(Share(7, 2), now));
  std::optional<IncompleteRelease> waiting = t.OldestPending(now + seconds(5));
  ASSERT_TRUE(waiting);
  EXPECT_EQ(waiting->release, 7);
  EXPECT_EQ(waiting->missing, std::vector<int32_t>{1});
  EXPECT_EQ(waiting->waited, seconds(5));

  std::optional<CompleteRelease> done = t.Add(Share(7, 1), now);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->release, 7);
  EXPECT_EQ(done->partitions, 3);
  EXPECT_EQ(done->groups, 33u);
  EXPECT_EQ(done->published, 150u);
  EXPECT_EQ(done->suppressed, 12u);
  EXPECT_EQ(done->counterfeits, 30u);
  EXPECT_EQ(done->tuples, 180u);
  EXPECT_EQ(done->events, 3000u);
  EXPECT_FALSE(t.OldestPending(now));
}

TEST(ReleaseTrackerTest, AnotherAttemptOfAShareIsNotCountedTwice) {
  ReleaseTracker t(2);
  const Clock::time_point now = Clock::now();
  EXPECT_FALSE(t.Add(Share(7, 0, 2), now));
  EXPECT_FALSE(t.Add(Share(7, 0, 2), now));  // would complete a count-based rule
  ASSERT_TRUE(t.Add(Share(7, 1, 2), now));
  EXPECT_FALSE(t.Add(Share(7, 1, 2), now));  // nor hand the release out again
}

TEST(ReleaseTrackerTest, AReleaseAPartitionMovedOnFromIsAbandonedNotAwaited) {
  ReleaseTracker t(2);
  const Clock::time_point now = Clock::now();
  EXPECT_FALSE(t.Add(Share(7, 1, 2), now));  // partition 0's summary of 7 came before the start
  EXPECT_FALSE(t.Add(Share(8, 0, 2), now + seconds(1)));
  std::vector<IncompleteRelease> gone = t.TakeAbandoned();
  ASSERT_EQ(gone.size(), 1u);
  EXPECT_EQ(gone[0].release, 7);
  EXPECT_EQ(gone[0].missing, std::vector<int32_t>{0});
  EXPECT_TRUE(t.TakeAbandoned().empty());
  ASSERT_TRUE(t.Add(Share(8, 1, 2), now));
  EXPECT_FALSE(t.OldestPending(now));
}

TEST(ReleaseTrackerTest, TheLongestWaitingReleaseIsReported) {
  ReleaseTracker t(2);
  const Clock::time_point now = Clock::now();
  t.Add(Share(9, 0, 2), now);
  t.Add(Share(10, 0, 2), now + seconds(3));  // partition 1 is behind: both wait for it
  EXPECT_TRUE(t.TakeAbandoned().empty());
  std::optional<IncompleteRelease> oldest = t.OldestPending(now + seconds(10));
  ASSERT_TRUE(oldest);
  EXPECT_EQ(oldest->release, 9);
  EXPECT_EQ(oldest->missing, std::vector<int32_t>{1});
  EXPECT_EQ(oldest->waited, seconds(10));
}

TEST(ReleaseTrackerTest, ASummaryDisagreeingWithTheMetadataIsAnError) {
  ReleaseTracker t(2);
  EXPECT_THROW(t.Add(Share(7, 0, 3), Clock::now()), std::invalid_argument);
  EXPECT_THROW(t.Add(Share(7, 2, 2), Clock::now()), std::invalid_argument);
  EXPECT_THROW(ReleaseTracker(0), std::invalid_argument);
}

}  // namespace
}  // namespace vanon::cli
