#include "vanon/vehicle/vin.h"

#include <gtest/gtest.h>

namespace vanon::fleet {
namespace {

TEST(VinTest, AcceptsSeventeenVinCharacters) {
  EXPECT_TRUE(base::IsValidVin("1HGCM82633A004352"));
  EXPECT_TRUE(base::IsValidVin("WBA7C5E10LA123456"));
}

TEST(VinTest, RejectsWrongLengthAndForbiddenLetters) {
  EXPECT_FALSE(base::IsValidVin(""));
  EXPECT_FALSE(base::IsValidVin("1HGCM82633A00435"));    // 16
  EXPECT_FALSE(base::IsValidVin("1HGCM82633A0043521"));  // 18
  EXPECT_FALSE(base::IsValidVin("1HGCM82633A0O4352"));   // O
  EXPECT_FALSE(base::IsValidVin("1HGCM82633A0I4352"));   // I
  EXPECT_FALSE(base::IsValidVin("1HGCM82633A0Q4352"));   // Q
  EXPECT_FALSE(base::IsValidVin("1hgcm82633a004352"));   // lower case
  EXPECT_FALSE(base::IsValidVin("1HGCM82633A00435-"));
}

TEST(VinTest, CheckDigitMatchesPublishedExamples) {
  // Well-known examples of the 49 CFR 565 check digit.
  EXPECT_EQ(VinCheckDigit("1M8GDM9AXKP042788"), 'X');
  EXPECT_EQ(VinCheckDigit("11111111111111111"), '1');
  EXPECT_EQ(VinCheckDigit("1HGCM82633A004352"), '3');
  EXPECT_TRUE(HasValidCheckDigit("1M8GDM9AXKP042788"));
  EXPECT_FALSE(HasValidCheckDigit("1M8GDM9A1KP042788"));
  EXPECT_FALSE(HasValidCheckDigit("1M8GDM9AXKP04278"));
}

}  // namespace
}  // namespace vanon::fleet
