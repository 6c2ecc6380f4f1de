#include "vanon/dp/epsilon.h"

#include <gtest/gtest.h>

namespace vanon::dp {
namespace {

TEST(Epsilon, ParsesDecimalsExactly) {
  EXPECT_EQ(Epsilon::Parse("0.1")->nanos(), 100'000'000);
  EXPECT_EQ(Epsilon::Parse("10")->nanos(), 10'000'000'000);
  EXPECT_EQ(Epsilon::Parse("2.5")->ToRational(), (Rational{5, 2}));
  EXPECT_EQ(Epsilon::Parse("0.000000001")->nanos(), 1);
  // 0.1 + 0.2 is exactly 0.3 here, unlike in binary floating point.
  EXPECT_EQ(*Epsilon::Parse("0.1") + *Epsilon::Parse("0.2"), *Epsilon::Parse("0.3"));
}

TEST(Epsilon, RejectsWhatIsNotAPlainDecimal) {
  for (const char* bad : {"", ".", "-1", "1e-3", "0.1.2", " 1", "0.0000000001", "abc", "99999999999999999999"}) {
    EXPECT_FALSE(Epsilon::Parse(bad).has_value()) << bad;
  }
}

TEST(Epsilon, FromDoubleUsesTheShortestDecimal) {
  EXPECT_EQ(Epsilon::FromDouble(0.1)->ToRational(), (Rational{1, 10}));
  EXPECT_EQ(Epsilon::FromDouble(10.0)->ToRational(), (Rational{10, 1}));
  EXPECT_FALSE(Epsilon::FromDouble(-1).has_value());
  EXPECT_FALSE(Epsilon::FromDouble(1e-12).has_value());
}

TEST(Epsilon, ToStringAndShare) {
  EXPECT_EQ(Epsilon::Parse("0.10")->ToString(), "0.1");
  EXPECT_EQ(Epsilon::Parse("3")->ToString(), "3");
  EXPECT_EQ(Epsilon::Parse("1")->Share(4), (Rational{1, 4}));
  EXPECT_EQ(Epsilon::Parse("0.3")->Share(3), (Rational{1, 10}));
}

}  // namespace
}  // namespace vanon::dp
