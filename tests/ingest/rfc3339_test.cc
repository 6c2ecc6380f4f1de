#include "vanon/ingest/rfc3339.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace vanon::ingest {
namespace {

// Expected values computed independently with Python's datetime.
TEST(Rfc3339Test, ParsesUtcAndOffsets) {
  std::int64_t ms = -1;
  ASSERT_TRUE(ParseRfc3339Millis("2025-11-22T10:00:00.123Z", &ms));
  EXPECT_EQ(ms, 1763805600123);
  ASSERT_TRUE(ParseRfc3339Millis("2025-11-22T10:00:00+01:00", &ms));
  EXPECT_EQ(ms, 1763802000000);
  ASSERT_TRUE(ParseRfc3339Millis("2024-02-29T23:59:59.999-05:30", &ms));
  EXPECT_EQ(ms, 1709270999999);
  ASSERT_TRUE(ParseRfc3339Millis("1970-01-01T00:00:00Z", &ms));
  EXPECT_EQ(ms, 0);
  ASSERT_TRUE(ParseRfc3339Millis("2000-01-01t00:00:00z", &ms));
  EXPECT_EQ(ms, 946684800000);
}

TEST(Rfc3339Test, FractionIsTruncatedToMilliseconds) {
  std::int64_t ms = -1;
  ASSERT_TRUE(ParseRfc3339Millis("2025-11-22T10:00:00.1Z", &ms));
  EXPECT_EQ(ms, 1763805600100);
  ASSERT_TRUE(ParseRfc3339Millis("2025-11-22T10:00:00.123999999Z", &ms));
  EXPECT_EQ(ms, 1763805600123);
}

TEST(Rfc3339Test, LeapSecondRollsIntoNextMinute) {
  std::int64_t ms = -1;
  ASSERT_TRUE(ParseRfc3339Millis("2016-12-31T23:59:60Z", &ms));
  EXPECT_EQ(ms, 1483228799000 + 1000);
}

TEST(Rfc3339Test, RejectsMalformedText) {
  std::int64_t ms;
  for (const char* bad : {
           "",
           "NaN",
           "Infinity",
           "1763805600123",
           "2025-11-22",
           "2025-11-22T10:00:00",        // no zone
           "2025-11-22 10:00:00Z",       // space separator
           "2025-11-22T10:00:00.Z",      // empty fraction
           "2025-11-22T10:00Z",          // no seconds
           "2025-13-01T00:00:00Z",       // month 13
           "2025-02-29T00:00:00Z",       // not a leap year
           "2025-04-31T00:00:00Z",       // April has 30 days
           "2025-00-10T00:00:00Z",       // month 0
           "2025-11-00T00:00:00Z",       // day 0
           "2025-11-22T24:00:00Z",       // hour 24
           "2025-11-22T10:60:00Z",       // minute 60
           "2025-11-22T10:00:61Z",       // second 61
           "2025-11-22T10:00:00+24:00",  // offset hour 24
           "2025-11-22T10:00:00+0100",   // offset without colon
           "2025-11-22T10:00:00Z ",      // trailing space
           "2025-11-22T10:00:00ZZ",
           "+2025-11-22T10:00:00Z",
           "2025-11-2xT10:00:00Z",
       }) {
    EXPECT_FALSE(ParseRfc3339Millis(bad, &ms)) << bad;
  }
}

}  // namespace
}  // namespace vanon::ingest
