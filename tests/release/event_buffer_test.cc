#include "vanon/release/event_buffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>

namespace vanon::release {
namespace {

KeyedEvent At(int64_t ts, int64_t offset) {
  KeyedEvent e;
  e.ts_ms = ts;
  e.offset = offset;
  e.event.ts_ms = ts;
  e.event.event = "e" + std::to_string(offset);
  return e;
}

EpochEvents Take(EventBuffer& buffer, int64_t start, int64_t end) {
  return ArrangeEpochEvents(buffer.Take(end), start);
}

std::vector<std::pair<int64_t, int64_t>> Sorted(std::vector<std::pair<int64_t, int64_t>> keys) {
  std::sort(keys.begin(), keys.end());
  return keys;
}

TEST(EventBuffer, TakeSplitsAtTheEpochAndOrdersLikeStateKeys) {
  EventBuffer buffer(1000);
  std::mt19937 rng(7);
  std::vector<std::pair<int64_t, int64_t>> current, old, later;
  // Arrival is offset order; times go back and forth, as with lateness.
  for (int64_t offset = 0; offset < 400; ++offset) {
    const int64_t ts = static_cast<int64_t>(rng() % 4000);
    buffer.Add(At(ts, offset));
    (ts < 2000 ? old : ts < 3000 ? current : later).emplace_back(ts, offset);
  }
  EpochEvents ev = Take(buffer, 2000, 3000);
  EXPECT_EQ(ev.current_keys, Sorted(current));
  EXPECT_EQ(ev.old_keys, Sorted(old));
  ASSERT_EQ(ev.current.size(), current.size());
  for (size_t i = 0; i < ev.current.size(); ++i) {
    EXPECT_EQ(ev.current[i].ts_ms, ev.current_keys[i].first);
    EXPECT_EQ(ev.current[i].event, "e" + std::to_string(ev.current_keys[i].second));
  }
  EXPECT_EQ(buffer.size(), later.size());
  // What was taken is gone; what is put back comes out again.
  EXPECT_TRUE(Take(buffer, 2000, 3000).current.empty());
  buffer.Add(At(2500, 1000));
  buffer.Add(At(10, 1001));
  EpochEvents again = Take(buffer, 2000, 3000);
  EXPECT_EQ(again.current_keys, (std::vector<std::pair<int64_t, int64_t>>{{2500, 1000}}));
  EXPECT_EQ(again.old_keys, (std::vector<std::pair<int64_t, int64_t>>{{10, 1001}}));
  EXPECT_EQ(Take(buffer, 3000, 4000).current_keys, Sorted(later));
  EXPECT_EQ(buffer.size(), 0u);
}

TEST(EventBuffer, EqualTimesOrderByOffset) {
  EventBuffer buffer(1000);
  buffer.Add(At(500, 9));
  buffer.Add(At(500, 3));
  buffer.Add(At(499, 10));
  EXPECT_EQ(Take(buffer, 0, 1000).current_keys,
            (std::vector<std::pair<int64_t, int64_t>>{{499, 10}, {500, 3}, {500, 9}}));
}

TEST(EventBuffer, BoundsInsideAnEpochKeepTheRest) {
  EventBuffer buffer(1000);
  buffer.Add(At(1200, 1));
  buffer.Add(At(1700, 2));
  EpochEvents ev = Take(buffer, 1000, 1500);
  EXPECT_EQ(ev.current_keys, (std::vector<std::pair<int64_t, int64_t>>{{1200, 1}}));
  EXPECT_EQ(buffer.size(), 1u);
  EXPECT_EQ(Take(buffer, 1500, 2000).current_keys, (std::vector<std::pair<int64_t, int64_t>>{{1700, 2}}));
}

TEST(EventBuffer, InOrderArrivalAndBoundsSpanningEpochs) {
  EventBuffer buffer(1000);
  for (int64_t offset = 0; offset < 30; ++offset) buffer.Add(At(offset * 100, offset));  // in key order
  // Current spans two epoch lists and part of a third is old: event by event.
  EpochEvents ev = Take(buffer, 1500, 2500);
  std::vector<std::pair<int64_t, int64_t>> current, old;
  for (int64_t o = 0; o < 25; ++o) (o * 100 >= 1500 ? current : old).emplace_back(o * 100, o);
  EXPECT_EQ(ev.current_keys, current);
  EXPECT_EQ(ev.old_keys, old);
  // One whole epoch in key order: moved as it is.
  EpochEvents next = Take(buffer, 2000, 3000);
  EXPECT_EQ(next.current_keys,
            (std::vector<std::pair<int64_t, int64_t>>{{2500, 25}, {2600, 26}, {2700, 27}, {2800, 28}, {2900, 29}}));
  ASSERT_EQ(next.current.size(), 5u);
  EXPECT_EQ(next.current[0].event, "e25");
  EXPECT_TRUE(next.old.empty());
  EXPECT_EQ(buffer.size(), 0u);
}

TEST(EventBuffer, RefusesANonPositiveEpoch) { EXPECT_THROW(EventBuffer(0), std::invalid_argument); }

TEST(EventBuffer, CountsArrivalsBehindATakeButNotEventsGivenBack) {
  EventBuffer buffer(1000);
  buffer.Add(At(1500, 0));
  buffer.Add(At(2100, 1));
  EXPECT_EQ(buffer.arrivals_behind_take(), 0u);  // nothing taken yet
  TakenEvents taken = buffer.Take(2000);
  EXPECT_EQ(buffer.arrivals_behind_take(), 0u);
  buffer.Add(At(2500, 2));  // after the taken end: the next epoch's
  EXPECT_EQ(buffer.arrivals_behind_take(), 0u);
  buffer.Add(At(1999, 3));  // would have belonged to the take
  EXPECT_EQ(buffer.arrivals_behind_take(), 1u);

  // Giving the take back (a precomputed share dropped) is not an arrival,
  // and a new take then holds the given-back and the late-arriving event.
  for (EpochList& list : taken) {
    for (size_t i = 0; i < list.events.size(); ++i) {
      buffer.Restore({list.keys[i].first, list.keys[i].second, std::move(list.events[i])});
    }
  }
  EXPECT_EQ(buffer.arrivals_behind_take(), 1u);
  EpochEvents again = Take(buffer, 1000, 2000);
  EXPECT_EQ(again.current_keys, (std::vector<std::pair<int64_t, int64_t>>{{1500, 0}, {1999, 3}}));
  EXPECT_EQ(buffer.size(), 2u);
}

// The changelog's resume offset: the lowest offset still buffered, restored
// events included, whatever their times.
// A consumed epoch's list, recycled once its release is applied, holds the
// next epoch's events: its memory is reused, not freed and faulted in anew.
TEST(EventBuffer, RecycledListHoldsTheNextEpochsEvents) {
  EventBuffer buffer(1000);
  for (int64_t offset = 0; offset < 100; ++offset) buffer.Add(At(offset, offset));
  EpochEvents first = Take(buffer, 0, 1000);
  ASSERT_EQ(first.current.size(), 100u);
  const ingest::BufferedEvent* memory = first.current.data();
  buffer.Recycle(std::move(first));
  for (int64_t offset = 100; offset < 150; ++offset) buffer.Add(At(1000 + offset, offset));
  EpochEvents second = Take(buffer, 1000, 2000);
  EXPECT_EQ(second.current.data(), memory);
  ASSERT_EQ(second.current.size(), 50u);
  for (size_t i = 0; i < second.current.size(); ++i) {
    EXPECT_EQ(second.current[i].event, "e" + std::to_string(100 + i));
    EXPECT_EQ(second.current_keys[i], std::make_pair(static_cast<int64_t>(1100 + i), static_cast<int64_t>(100 + i)));
  }
  EXPECT_EQ(buffer.size(), 0u);
}

// The spare of an epoch as large as any seen is taken even though a fresh
// list would reserve a quarter more: 60,000 events fill a list that grew to
// 65,536, less than the 75,000 a fresh one would ask for.
TEST(EventBuffer, ASpareAsLargeAsTheLargestEpochIsTaken) {
  EventBuffer buffer(1000);
  for (int64_t offset = 0; offset < 60000; ++offset) buffer.Add(At(offset % 1000, offset));
  EpochEvents first = Take(buffer, 0, 1000);
  ASSERT_EQ(first.current.size(), 60000u);
  ASSERT_LT(first.current.capacity(), 75000u);
  const ingest::BufferedEvent* memory = first.current.data();
  buffer.Recycle(std::move(first));
  for (int64_t offset = 0; offset < 10; ++offset) buffer.Add(At(1000 + offset, 60000 + offset));
  EXPECT_EQ(Take(buffer, 1000, 2000).current.data(), memory);
}

// An epoch whose events arrived out of time order is sorted where it is:
// the release gets the list's own memory, in key order, and that memory
// goes on to a later epoch larger than any before it, up to the quarter
// more a list reserves once a size is known.
TEST(EventBuffer, AnUnsortedEpochIsSortedInItsOwnMemory) {
  EventBuffer buffer(1000);
  for (int64_t offset = 0; offset < 1000; ++offset) buffer.Add(At(offset, offset));
  buffer.Recycle(Take(buffer, 0, 1000));  // sizes the lists: 1,000 events
  std::mt19937 rng(3);
  std::vector<std::pair<int64_t, int64_t>> keys;
  for (int64_t offset = 1000; offset < 1900; ++offset) {
    const int64_t ts = 1000 + static_cast<int64_t>(rng() % 1000);
    buffer.Add(At(ts, offset));
    keys.emplace_back(ts, offset);
  }
  EpochEvents second = Take(buffer, 1000, 2000);
  ASSERT_EQ(second.current_keys, Sorted(keys));
  for (size_t i = 0; i < second.current.size(); ++i) {
    EXPECT_EQ(second.current[i].ts_ms, second.current_keys[i].first);
    EXPECT_EQ(second.current[i].event, "e" + std::to_string(second.current_keys[i].second));
  }
  ASSERT_GE(second.current.capacity(), 1250u);
  const ingest::BufferedEvent* memory = second.current.data();
  buffer.Recycle(std::move(second));
  for (int64_t offset = 2000; offset < 3200; ++offset) buffer.Add(At(2999 - offset % 1000, offset));
  EpochEvents third = Take(buffer, 2000, 3000);
  EXPECT_EQ(third.current.data(), memory);
  EXPECT_EQ(third.current.size(), 1200u);
  EXPECT_TRUE(std::is_sorted(third.current_keys.begin(), third.current_keys.end()));
}

TEST(EventBuffer, MinOffsetIsTheLowestBufferedOffset) {
  EventBuffer buffer(1000);
  EXPECT_FALSE(buffer.MinOffset().has_value());
  buffer.Add(At(2500, 30));
  buffer.Add(At(1500, 31));
  buffer.Restore(At(3500, 12));
  buffer.Add(At(500, 40));
  EXPECT_EQ(buffer.MinOffset(), 12);
  buffer.Take(4000);
  EXPECT_FALSE(buffer.MinOffset().has_value());
}

}  // namespace
}  // namespace vanon::release
