#include "share_summary.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace vanon::cli {
namespace {

// A summary as the service writes it (release_writer.cc).
constexpr const char* kSummary =
    R"({"type":"summary","version":2,"release":179569852,"partition":1,"partitions":2,)"
    R"("epoch_start":1795698520000,"epoch_end":1795698530000,"groups":38,"tuples":200,"published":108,)"
    R"("counterfeits":92,"events":3588,"waiting":0,"suppressed":{"signature_conflict":45,"delay":3,"ineligible":1},)"
    R"("metrics":{"suppression_ratio":0.29,"discernibility":7253,"emd_max":0.98,"ncp":0.44,"min_group_size":1,)"
    R"("min_distinct":1,"avg_group_size":2.84,"counterfeit_ratio":0.46}})";

TEST(ShareSummaryTest, ReadsTheFieldsTailReports) {
  std::optional<ShareSummary> s = ParseShareSummary(kSummary);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->release, 179569852);
  EXPECT_EQ(s->partition, 1);
  EXPECT_EQ(s->partitions, 2);
  EXPECT_EQ(s->groups, 38u);
  EXPECT_EQ(s->tuples, 200u);
  EXPECT_EQ(s->published, 108u);
  EXPECT_EQ(s->counterfeits, 92u);
  EXPECT_EQ(s->events, 3588u);
  EXPECT_EQ(s->suppressed, 49u);  // every reason
}

TEST(ShareSummaryTest, GroupRecordsAreNotSummaries) {
  EXPECT_FALSE(
      ParseShareSummary(R"({"type":"group","version":2,"release":1,"partition":0,"group":"g-0123456789abcdef",)"
                        R"("qi":{},"size":5,"counterfeits":0})"));
}

TEST(ShareSummaryTest, BrokenRecordsSayWhatIsWrong) {
  EXPECT_THROW(ParseShareSummary("{not json"), std::invalid_argument);
  EXPECT_THROW(ParseShareSummary(R"({"release":1})"), std::invalid_argument);
  try {
    ParseShareSummary(R"({"type":"summary","release":1,"partition":0})");
    FAIL() << "a summary without partitions was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("\"partitions\""), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vanon::cli
