#include "vanon/dp/discrete_laplace.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <utility>

namespace vanon::dp {
namespace {

// Tolerance of a frequency over n trials: 5 standard deviations.
double Tol(double p, int n) { return 5 * std::sqrt(p * (1 - p) / n); }

TEST(UniformBelow, StaysInRangeAndHitsEveryValue) {
  SeededRandomSource rng(1);
  int hits[7] = {};
  for (int i = 0; i < 70'000; ++i) {
    const uint64_t v = rng.UniformBelow(7);
    ASSERT_LT(v, 7u);
    ++hits[v];
  }
  for (int h : hits) EXPECT_NEAR(h / 70'000.0, 1 / 7.0, Tol(1 / 7.0, 70'000));
  EXPECT_EQ(rng.UniformBelow(1), 0u);
}

TEST(Bernoulli, RationalFrequency) {
  SeededRandomSource rng(2);
  constexpr int kN = 100'000;
  int ones = 0;
  for (int i = 0; i < kN; ++i) ones += BernoulliRational(rng, 3, 10);
  EXPECT_NEAR(ones / double(kN), 0.3, Tol(0.3, kN));
}

TEST(Bernoulli, ExpMinusFrequencyBelowAndAboveOne) {
  SeededRandomSource rng(3);
  constexpr int kN = 100'000;
  for (auto [num, den] : {std::pair<uint64_t, uint64_t>{1, 3}, {1, 1}, {7, 2}, {0, 5}}) {
    int ones = 0;
    for (int i = 0; i < kN; ++i) ones += BernoulliExpMinus(rng, num, den);
    const double p = std::exp(-double(num) / double(den));
    EXPECT_NEAR(ones / double(kN), p, Tol(p, kN) + 1e-12) << num << "/" << den;
  }
}

TEST(DiscreteLaplace, ScaleIsSensitivityOverEpsilon) {
  auto n = DiscreteLaplace::ForQuery(4, Epsilon::Parse("0.5")->ToRational());
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->scale(), (Rational{8, 1}));
  EXPECT_FALSE(DiscreteLaplace::ForQuery(0, Rational{1, 1}).has_value());
  EXPECT_FALSE(DiscreteLaplace::ForQuery(1, Rational{0, 1}).has_value());
  EXPECT_FALSE(DiscreteLaplace::ForQuery(UINT64_MAX, Rational{1, 3}).has_value());
}

TEST(DiscreteLaplace, PmfSumsToOne) {
  auto n = DiscreteLaplace::WithScale(Rational{5, 2});
  double total = 0;
  for (int64_t x = -200; x <= 200; ++x) total += n->Pmf(x);
  EXPECT_NEAR(total, 1.0, 1e-9);
}

TEST(DiscreteLaplace, SameSeedSameNoiseDifferentSeedDifferent) {
  auto n = DiscreteLaplace::WithScale(Rational{10, 1});
  SeededRandomSource a(7), b(7), c(8);
  int differ = 0;
  for (int i = 0; i < 100; ++i) {
    const int64_t x = n->Sample(a);
    EXPECT_EQ(x, n->Sample(b));
    differ += x != n->Sample(c);
  }
  EXPECT_GT(differ, 50);
}

TEST(OpenSslRandomSource, ProducesVaryingNoise) {
  OpenSslRandomSource rng;
  auto n = DiscreteLaplace::WithScale(Rational{100, 1});
  std::set<int64_t> seen;
  for (int i = 0; i < 200; ++i) seen.insert(n->Sample(rng));
  // Scale 100: 200 draws take well over 50 distinct values.
  EXPECT_GT(seen.size(), 50u);
}

}  // namespace
}  // namespace vanon::dp
