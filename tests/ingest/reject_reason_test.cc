#include "vanon/ingest/reject_reason.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace vanon::ingest {
namespace {

// The names are a public contract (metrics labels, DLQ headers): spell them
// out here rather than derive them.
TEST(RejectReasonTest, NamesMatchTheMetricsContract) {
  EXPECT_EQ(RejectReasonName(RejectReason::kBrokenJson), "broken_json");
  EXPECT_EQ(RejectReasonName(RejectReason::kMissingField), "missing_field");
  EXPECT_EQ(RejectReasonName(RejectReason::kWrongType), "wrong_type");
  EXPECT_EQ(RejectReasonName(RejectReason::kInvalidVin), "invalid_vin");
  EXPECT_EQ(RejectReasonName(RejectReason::kTimestampOutOfRange), "timestamp_out_of_range");
  EXPECT_EQ(RejectReasonName(RejectReason::kTooLarge), "too_large");
  EXPECT_EQ(RejectReasonName(RejectReason::kInvalidUtf8), "invalid_utf8");
  EXPECT_EQ(RejectReasonName(RejectReason::kTooDeep), "too_deep");
  EXPECT_EQ(RejectReasonName(RejectReason::kMissingKey), "missing_key");
}

TEST(RejectReasonTest, AllReasonsListsEachReasonOnce) {
  const std::set<std::string> expected = {
      "broken_json", "missing_field", "wrong_type", "invalid_vin", "timestamp_out_of_range",
      "too_large",   "invalid_utf8",  "too_deep",   "missing_key"};
  std::set<std::string> seen;
  for (RejectReason r : kAllRejectReasons) {
    seen.insert(std::string(RejectReasonName(r)));
  }
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(kAllRejectReasons.size(), expected.size());
}

}  // namespace
}  // namespace vanon::ingest
