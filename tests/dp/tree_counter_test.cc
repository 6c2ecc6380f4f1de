#include "vanon/dp/tree_counter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

namespace vanon::dp {
namespace {

// Acceptance: over 1,024 releases the tree mechanism's running total has a
// lower RMSE than summing per-release noise at the same total epsilon, both
// after release 1024 and averaged over all prefixes 1..1024. Neighbouring
// streams differ by one vehicle changing one release's value by at most 1
// (stream sensitivity 1), e.g. counting vehicles first seen; per-release
// noise of scale 1/epsilon is then epsilon-DP for the whole stream.
TEST(TreeCounter, LowerRmseThanNaiveSumOver1024Releases) {
  constexpr int kLevels = 10;  // horizon 1024
  constexpr int kReleases = 1024;
  constexpr int kTrials = 1000;
  const Rational epsilon{1, 1};
  auto naive_noise = DiscreteLaplace::ForQuery(1, epsilon);
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
  std::printf("running total over 1024 releases, epsilon 1, stream sensitivity 1, %d trials:\n", kTrials);
  std::printf("  RMSE at release 1024:        tree %.2f  naive %.2f\n", tree_final, naive_final);
  std::printf("  RMSE over releases 1..1024:  tree %.2f  naive %.2f\n", tree_all, naive_all);
  EXPECT_LT(tree_final, naive_final);
  EXPECT_LT(tree_all, naive_all);
}

// The weighting must give a level-k block the variance v 2^k / (2^(k+1) - 1)
// (v: one noisy sum's variance); the running total after t sums the blocks
// of the set bits of t, and after T the two halves. A counter that dropped
// the weighting (or noised the wrong blocks) fails this.
TEST(TreeCounter, RunningTotalVarianceMatchesWeights) {
  constexpr int kLevels = 6;  // horizon 64
  constexpr int kTrials = 20000;
  const Rational epsilon{1, 1};
  SeededRandomSource rng(7);
  const int checked[] = {1, 2, 3, 7, 32, 63, 64};
  double sq[7] = {};
  for (int trial = 0; trial < kTrials; ++trial) {
    auto tree = TreeCounter::Create(kLevels, 1, epsilon);
    int64_t truth = 0;
    for (int t = 1, c = 0; t <= 64; ++t) {
      truth += t % 5;
      const int64_t total = *tree->Add(t % 5, rng);
      if (t == checked[c]) {
        sq[c] += static_cast<double>(total - truth) * static_cast<double>(total - truth);
        ++c;
      }
    }
  }
  const double v = TreeCounter::Create(kLevels, 1, epsilon)->noise().Variance();
  for (int c = 0; c < 7; ++c) {
    const int t = checked[c];
    double expected = 1.0 / 12;  // rounding to an integer, roughly
    for (int k = 0; k <= kLevels; ++k) {
      if (((t >> k) & 1) == 0) continue;
      const int level = k < kLevels ? k : kLevels - 1;
      const double block = v * std::ldexp(1.0, level) / (std::ldexp(1.0, level + 1) - 1);
      expected += k < kLevels ? block : 2 * block;
    }
    const double measured = sq[c] / kTrials;
    std::printf("  t=%d: variance %.1f, expected %.1f\n", t, measured, expected);
    EXPECT_NEAR(measured / expected, 1.0, 0.06) << "t=" << t;
  }
}

TEST(TreeCounter, ExactWithoutNoiseStructure) {
  // With noise scale ~4e-6 every draw is 0 (with overwhelming probability):
  // the weighted estimates must then reproduce the true prefix sums exactly,
  // negative ones included.
  auto tree = TreeCounter::Create(4, 1, Rational{1000000, 1});
  SeededRandomSource rng(1);
  int64_t truth = 0;
  for (int t = 1; t <= 16; ++t) {
    truth += t * t - 50;
    EXPECT_EQ(tree->Add(t * t - 50, rng), truth);
  }
}

TEST(TreeCounter, SerializedStateContinuesIdentically) {
  auto a = TreeCounter::Create(6, 2, Rational{1, 2});
  SeededRandomSource rng_a(5);
  for (int t = 0; t < 21; ++t) a->Add(t, rng_a);
  const std::string text = a->Serialize();
  EXPECT_EQ(text.rfind("tree2 6 2 1 2 21 ", 0), 0u) << text;
  auto b = TreeCounter::Deserialize(text);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->releases(), 21u);
  EXPECT_EQ(b->Current(), a->Current());
  EXPECT_EQ(b->Serialize(), text);
  SeededRandomSource rng_b = rng_a;
  for (int t = 21; t < 64; ++t) EXPECT_EQ(a->Add(t, rng_a), b->Add(t, rng_b));
  EXPECT_FALSE(TreeCounter::Deserialize("tree2 6 2 1 2").has_value());
  EXPECT_FALSE(TreeCounter::Deserialize("tree2 1 1 1 1 0 0 0 0 x").has_value());
  EXPECT_FALSE(TreeCounter::Deserialize("tree2 1 1 1 1 0 0 0 0 0 extra").has_value());
  EXPECT_FALSE(TreeCounter::Deserialize("tree3 1 1 1 1 0 0 0 0 0").has_value());
  EXPECT_FALSE(TreeCounter::Deserialize("garbage").has_value());
  EXPECT_FALSE(TreeCounter::Create(0, 1, Rational{1, 1}).has_value());
}

// A "tree1" state written before the weighted counter keeps its algorithm
// and its noise scale (levels + 1 blocks per release) until its horizon.
TEST(TreeCounter, ReadsTree1State) {
  // levels 2, sensitivity 1, epsilon 10^6 (noise 0), t = 3: blocks [1,2] = 5
  // and [3,3] = 4 in slots 1 and 0.
  auto old = TreeCounter::Deserialize("tree1 2 1 1000000 1 3 4 4 5 5 0 0");
  ASSERT_TRUE(old.has_value());
  EXPECT_EQ(old->releases(), 3u);
  EXPECT_EQ(old->Current(), 9);
  EXPECT_EQ(old->noise().scale(), (Rational{3, 1000000}));
  SeededRandomSource rng(3);
  EXPECT_EQ(old->Add(6, rng), 15);
  EXPECT_EQ(old->Serialize(), "tree1 2 1 1000000 1 4 0 0 0 0 15 15");
  EXPECT_FALSE(old->Add(1, rng).has_value());

  auto scaled = TreeCounter::Deserialize("tree1 10 3 1 2 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0");
  ASSERT_TRUE(scaled.has_value());
  EXPECT_EQ(scaled->noise().scale(), (Rational{66, 1}));  // 3 * (10 + 1) / (1/2)
}

TEST(TreeCounter, NoiseScaleCoversEveryLevel) {
  auto tree = TreeCounter::Create(10, 3, Rational{1, 2});
  // Each release is in one block on each of levels 0..9: 3 * 10 / (1/2) = 60.
  EXPECT_EQ(tree->noise().scale(), (Rational{60, 1}));
}

}  // namespace
}  // namespace vanon::dp
