#include "vanon/ingest/rfc3339.h"

#include <gtest/gtest.h>

namespace vanon::ingest {
namespace {

int64_t Parse(const char* text) {
  int64_t ms = -1;
  EXPECT_TRUE(ParseRfc3339Millis(text, &ms)) << text;
  return ms;
}

bool Rejects(const char* text) {
  int64_t ms = 0;
  return !ParseRfc3339Millis(text, &ms);
}

TEST(Rfc3339Shared, Epoch) {
  EXPECT_EQ(Parse("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(Parse("1970-01-01t00:00:00z"), 0);
  EXPECT_EQ(Parse("1970-01-01T01:00:00+01:00"), 0);
  EXPECT_EQ(Parse("1969-12-31T23:30:00-00:30"), 0);
}

TEST(Rfc3339Shared, DatesAndFractions) {
  // 2000-03-01: 30 years incl. 7 leap days = 10957 days, + 31 (Jan) + 29 (Feb).
  EXPECT_EQ(Parse("2000-03-01T00:00:00.5Z"), (10957LL + 60) * 86400000 + 500);
  EXPECT_EQ(Parse("2000-01-01T00:00:01.2349Z"), 10957LL * 86400000 + 1234);
  EXPECT_EQ(Parse("1969-12-31T23:59:59Z"), -1000);
}

TEST(Rfc3339Shared, RejectsInvalid) {
  EXPECT_TRUE(Rejects("2021-02-29T00:00:00Z"));  // not a leap year
  EXPECT_TRUE(Rejects("2000-13-01T00:00:00Z"));
  EXPECT_TRUE(Rejects("2000-01-01T24:00:00Z"));
  EXPECT_TRUE(Rejects("2000-01-01T00:00:00"));  // offset is mandatory
  EXPECT_TRUE(Rejects("2000-01-01T00:00:00+0100"));
  EXPECT_TRUE(Rejects("2000-1-01T00:00:00Z"));
  EXPECT_TRUE(Rejects("2000-01-01T00:00:00.Z"));
  EXPECT_TRUE(Rejects("2000-01-01T00:00:00Zjunk"));
  EXPECT_TRUE(Rejects("2000-01-01"));
  EXPECT_TRUE(Rejects(""));
}

}  // namespace
}  // namespace vanon::ingest
