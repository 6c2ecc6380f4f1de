// Acceptance test: 10^6 draws per scale from a fixed seed match the
// discrete Laplace pmf (chi-square), have mean 0 and the theoretical variance
// within 2%.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>

#include "vanon/dp/discrete_laplace.h"

namespace vanon::dp {
namespace {

// Upper alpha = 1e-4 quantile of chi-square(df), Wilson-Hilferty approximation.
double ChiSquareCritical(int df) {
  const double z = 3.719;
  const double a = 2.0 / (9.0 * df);
  return df * std::pow(1 - a + z * std::sqrt(a), 3);
}

struct ScaleCase {
  uint64_t sensitivity;
  const char* epsilon;
  uint64_t seed;
};

class DistributionTest : public ::testing::TestWithParam<ScaleCase> {};

TEST_P(DistributionTest, MatchesPmfMeanAndVariance) {
  const ScaleCase c = GetParam();
  auto noise = DiscreteLaplace::ForQuery(c.sensitivity, Epsilon::Parse(c.epsilon)->ToRational());
  ASSERT_TRUE(noise.has_value());
  SeededRandomSource rng(c.seed);

  constexpr int kDraws = 1'000'000;
  std::map<int64_t, int64_t> histogram;
  double sum = 0;
  double sum_sq = 0;
  for (int i = 0; i < kDraws; ++i) {
    const int64_t x = noise->Sample(rng);
    ++histogram[x];
    sum += static_cast<double>(x);
    sum_sq += static_cast<double>(x) * static_cast<double>(x);
  }

  // Bins |x| <= K with expected count >= 5, plus one bin per tail.
  int64_t k = 0;
  while (kDraws * noise->Pmf(k + 1) >= 5) ++k;
  double chi2 = 0;
  double inner_mass = 0;
  int64_t inner_observed = 0;
  for (int64_t x = -k; x <= k; ++x) {
    const double expected = kDraws * noise->Pmf(x);
    const double observed = static_cast<double>(histogram.count(x) ? histogram[x] : 0);
    chi2 += (observed - expected) * (observed - expected) / expected;
    inner_mass += noise->Pmf(x);
    inner_observed += static_cast<int64_t>(observed);
  }
  int64_t below = 0;
  for (const auto& [x, n] : histogram) {
    if (x < -k) below += n;
  }
  const int64_t above = kDraws - inner_observed - below;
  const double tail_expected = kDraws * (1 - inner_mass) / 2;
  int bins = static_cast<int>(2 * k + 1);
  if (tail_expected > 0) {
    chi2 += (below - tail_expected) * (below - tail_expected) / tail_expected;
    chi2 += (above - tail_expected) * (above - tail_expected) / tail_expected;
    bins += 2;
  }
  const int df = bins - 1;

  const double mean = sum / kDraws;
  const double variance = sum_sq / kDraws - mean * mean;
  const double theory = noise->Variance();
  std::printf("scale %s: chi2 %.1f (df %d, critical %.1f) mean %.4f variance %.4f theory %.4f\n",
              std::to_string(noise->scale().ToDouble()).c_str(), chi2, df, ChiSquareCritical(df), mean, variance,
              theory);

  EXPECT_LT(chi2, ChiSquareCritical(df));
  EXPECT_LT(std::abs(mean), 5 * std::sqrt(theory / kDraws));
  EXPECT_LT(std::abs(variance / theory - 1), 0.02);
}

INSTANTIATE_TEST_SUITE_P(ThreeScales, DistributionTest,
                         ::testing::Values(ScaleCase{1, "2", 11},      // b = 0.5
                                           ScaleCase{3, "1", 12},      // b = 3
                                           ScaleCase{1, "0.1", 13}));  // b = 10

}  // namespace
}  // namespace vanon::dp
