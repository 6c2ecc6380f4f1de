#include "base/decimal_text.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace vanon::base {
namespace {

std::string Fixed6(double x) {
  std::string s = "prefix";
  AppendFixed6(&s, x);
  return s.substr(6);
}

std::string General15(double x) {
  std::string s = "prefix";
  AppendGeneral15(&s, x);
  return s.substr(6);
}

std::vector<double> EdgeValues() {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> v = {0.0,
                           -0.0,
                           1.0,
                           -1.0,
                           0.5,
                           -0.5,
                           1e-7,
                           -1e-7,
                           4e-7,
                           -4e-7,
                           5e-7,
                           -5e-7,
                           6e-7,
                           -6e-7,
                           1.0 / 128,
                           -1.0 / 128,
                           0.0078125 + 1e-12,
                           999999.9999995,
                           -999999.9999995,
                           1e6,
                           -1e6,
                           1e6 - 1e-9,
                           1e15,
                           -1e15,
                           1e15 - 1,
                           1e16,
                           123456789.5,
                           2.5,
                           -2.5,
                           1e300,
                           -1e300,
                           inf,
                           -inf,
                           std::numeric_limits<double>::quiet_NaN(),
                           std::numeric_limits<double>::denorm_min(),
                           std::numeric_limits<double>::max(),
                           89.99999949999999,
                           89.9999995,
                           -179.9999995,
                           179.99999950000001};
  // Exact half-micro ties: odd multiples of 2^-7 are x * 1e6 = m + 0.5.
  for (int k = 1; k < 400; k += 2) {
    v.push_back(k / 128.0);
    v.push_back(-k / 128.0);
  }
  return v;
}

TEST(DecimalText, Fixed6MatchesFmtOnEdgeValues) {
  for (double x : EdgeValues()) EXPECT_EQ(Fixed6(x), fmt::format("{:.6f}", x)) << x;
}

TEST(DecimalText, General15MatchesFmtOnEdgeValues) {
  for (double x : EdgeValues()) EXPECT_EQ(General15(x), fmt::format("{:.15g}", x)) << x;
}

// Coordinates and their neighbours at every scale the fast path covers.
TEST(DecimalText, Fixed6MatchesFmtOnRandomValues) {
  std::mt19937_64 rng(20261126);
  std::uniform_real_distribution<double> coordinate(-180.0, 180.0);
  std::uniform_real_distribution<double> exponent(-12.0, 7.0);
  for (int i = 0; i < 300000; ++i) {
    const double c = coordinate(rng);
    ASSERT_EQ(Fixed6(c), fmt::format("{:.6f}", c)) << c;
    const double s = std::copysign(std::pow(10.0, exponent(rng)), coordinate(rng));
    ASSERT_EQ(Fixed6(s), fmt::format("{:.6f}", s)) << s;
    // Near a half-micro: where the fast path must step aside.
    const double h = (std::round(c * 1e6) + 0.5) / 1e6;
    for (double x : {h, std::nextafter(h, 0.0), std::nextafter(h, 1e9)}) {
      ASSERT_EQ(Fixed6(x), fmt::format("{:.6f}", x)) << x;
    }
  }
}

// What the bin transform prints: floor(v / w) * w.
TEST(DecimalText, General15MatchesFmtOnBinBounds) {
  std::mt19937_64 rng(20261126);
  std::uniform_real_distribution<double> value(-1e6, 1e6);
  for (double width : {1.0, 10.0, 0.5, 0.1, 0.25, 3.0, 1e-3, 1e12}) {
    for (int i = 0; i < 50000; ++i) {
      const double lo = std::floor(value(rng) / width) * width;
      ASSERT_EQ(General15(lo), fmt::format("{:.15g}", lo)) << lo;
    }
  }
  // Integers around every power of ten, where the notation may change.
  for (double p = 1; p <= 1e17; p *= 10) {
    for (double x : {p - 1, p, p + 1, -p + 1, -p, -p - 1, p * 0.5, p * 9.999}) {
      ASSERT_EQ(General15(x), fmt::format("{:.15g}", x)) << x;
    }
  }
}

}  // namespace
}  // namespace vanon::base
