#include "vanon/vehicle/model_year.h"

#include <gtest/gtest.h>

namespace vanon::fleet {
namespace {

TEST(ModelYearTest, CodesFollowTheIso3779Cycle) {
  EXPECT_EQ(ModelYearCode(1980), 'A');
  EXPECT_EQ(ModelYearCode(1988), 'J');  // I skipped
  EXPECT_EQ(ModelYearCode(2000), 'Y');
  EXPECT_EQ(ModelYearCode(2001), '1');
  EXPECT_EQ(ModelYearCode(2009), '9');
  EXPECT_EQ(ModelYearCode(2010), 'A');
  EXPECT_EQ(ModelYearCode(2023), 'P');  // O skipped
  EXPECT_EQ(ModelYearCode(2024), 'R');  // Q skipped
  EXPECT_EQ(ModelYearCode(2025), 'S');
  EXPECT_EQ(ModelYearCode(2027), 'V');  // U skipped
  EXPECT_EQ(ModelYearCode(1979), std::nullopt);
}

TEST(ModelYearTest, BaseYearPicksTheYearInsideTheWindow) {
  const ModelYearPolicy from2001{ModelYearRule::kBaseYear, 2001};
  EXPECT_EQ(DecodeModelYear("WBA7C5E10LA123456", from2001), 2020);
  EXPECT_EQ(DecodeModelYear("WBA7C5E101A123456", from2001), 2001);
  EXPECT_EQ(DecodeModelYear("WBA7C5E10YA123456", from2001), 2030);
  const ModelYearPolicy from1990{ModelYearRule::kBaseYear, 1990};
  EXPECT_EQ(DecodeModelYear("WBA7C5E10LA123456", from1990), 1990);
  EXPECT_EQ(DecodeModelYear("WBA7C5E10KA123456", from1990), 2019);
  EXPECT_EQ(DecodeModelYear("WBA7C5E10AA123456", from1990), 2010);
}

TEST(ModelYearTest, Position7RuleSplitsTheCycles) {
  const ModelYearPolicy na{ModelYearRule::kPosition7, 0};
  // Digit at position 7: 1980-2009.
  EXPECT_EQ(DecodeModelYear("1M8GDM9AXKP042788", na), 1989);
  EXPECT_EQ(DecodeModelYear("1HGCM82633A004352", na), 2003);
  // Letter at position 7: 2010-2039.
  EXPECT_EQ(DecodeModelYear("5YJ3E1EA7KF000001", na), 2019);
  EXPECT_EQ(DecodeModelYear("5YJ3E1EA71F000001", na), 2031);
}

TEST(ModelYearTest, NonYearCodesDecodeToNothing) {
  const ModelYearPolicy policy;
  EXPECT_EQ(DecodeModelYear("WBA7C5E100A123456", policy), std::nullopt);
  EXPECT_EQ(DecodeModelYear("WBA7C5E10UA123456", policy), std::nullopt);
  EXPECT_EQ(DecodeModelYear("WBA7C5E10ZA123456", policy), std::nullopt);
  EXPECT_EQ(DecodeModelYear("WBA7C5E10", policy), std::nullopt);
}

}  // namespace
}  // namespace vanon::fleet
