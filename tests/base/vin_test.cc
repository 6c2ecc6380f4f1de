#include "base/vin.h"

#include <gtest/gtest.h>

#include <string>

namespace vanon::base {
namespace {

TEST(VinTest, AcceptsIso3779Vins) {
  EXPECT_TRUE(IsValidVin("WDCGG8HB0AF462890"));
  EXPECT_TRUE(IsValidVin("1M8GDM9AXKP042788"));
  EXPECT_TRUE(IsValidVin("00000000000000000"));
  EXPECT_TRUE(IsValidVin("ZZZZZZZZZZZZZZZZZ"));
}

TEST(VinTest, RejectsWrongLength) {
  EXPECT_FALSE(IsValidVin(""));
  EXPECT_FALSE(IsValidVin("WDCGG8HB0AF46289"));    // 16
  EXPECT_FALSE(IsValidVin("WDCGG8HB0AF4628901"));  // 18
}

TEST(VinTest, RejectsExcludedLetters) {
  for (char bad : {'I', 'O', 'Q'}) {
    std::string vin = "WDCGG8HB0AF462890";
    vin[5] = bad;
    EXPECT_FALSE(IsValidVin(vin)) << bad;
  }
}

TEST(VinTest, RejectsLowerCaseAndOtherCharacters) {
  EXPECT_FALSE(IsValidVin("wdcgg8hb0af462890"));
  EXPECT_FALSE(IsValidVin("WDCGG8HB0AF46289a"));
  for (char bad : {' ', '-', '\0', '@', '[', '/', ':', '\x80'}) {
    std::string vin = "WDCGG8HB0AF462890";
    vin[16] = bad;
    EXPECT_FALSE(IsValidVin(vin)) << int(bad);
  }
}

}  // namespace
}  // namespace vanon::base
