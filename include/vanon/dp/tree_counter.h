// Running totals over releases with the binary tree mechanism (Dwork, Naor,
// Pitassi, Rothblum STOC 2010; Chan, Shi, Song TISSEC 2011), with the
// estimates combined as in Honaker, "Efficient use of differentially private
// binary trees" (2015).
//
// Release t (1-based) adds a true value x_t. Every dyadic block of releases
// on levels 0..levels-1 (block sizes 1, 2, ..., T/2 for a horizon of
// T = 2^levels) gets its own noisy sum. Each x_t lies in exactly one block per
// level, i.e. in `levels` noisy sums, so each gets discrete Laplace noise of
// scale stream_sensitivity * levels / epsilon, where stream_sensitivity
// bounds how much one vehicle can change x_1..x_T in total (L1). No block of
// size T is needed: the total after release T is the sum of its two halves.
//
// Post-processing (no privacy cost, it only reads the noisy sums): when a
// block completes, its estimate is the inverse-variance weighted mean of its
// own noisy sum and the sum of its two children's estimates. The weights
// depend only on the level (all noisy sums have the same variance v), so the
// estimate of a level-k block has variance v * 2^k / (2^(k+1) - 1), about v/2
// instead of v. The running total after t is the sum of the estimates of the
// popcount(t) blocks that make up [1, t], rounded to the nearest integer.
// Its error grows polylogarithmically in t instead of like sqrt(t) for
// summing independently noised per-release values at the same epsilon.
//
// stream_sensitivity is small when a vehicle counts in few releases (e.g.
// "new vehicles first seen in release t"); when every vehicle counts in
// every release it is T times the per-release sensitivity, and the tree
// offers no gain over per-release noise - see docs/dp.md.

#ifndef VANON_DP_TREE_COUNTER_H_
#define VANON_DP_TREE_COUNTER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vanon/dp/discrete_laplace.h"
#include "vanon/dp/epsilon.h"
#include "vanon/dp/random_source.h"

namespace vanon::dp {

class TreeCounter {
 public:
  static constexpr int kMaxLevels = 40;

  // Horizon T = 2^levels releases (1 <= levels <= kMaxLevels).
  static std::optional<TreeCounter> Create(int levels, uint64_t stream_sensitivity, Rational epsilon);

  // Adds the next release's true value; returns the noisy running total, or
  // nullopt once the horizon is used up (start a new counter and charge its
  // epsilon to the ledger).
  std::optional<int64_t> Add(int64_t value, RandomSource& rng);

  uint64_t releases() const { return t_; }
  uint64_t horizon() const { return uint64_t{1} << levels_; }
  const DiscreteLaplace& noise() const { return noise_; }
  // Noisy running total after the last Add (0 before the first).
  int64_t Current() const;

  // Text form holding the configuration, t and the true sums and estimates
  // of the blocks covering [1, t] (state for the service to persist next to
  // its release state; it contains true sums and must stay internal).
  // Current format "tree2"; "tree1" (the earlier counter, which noised one
  // block per release on levels 0..levels with scale proportional to
  // levels + 1) is still read and continues with that algorithm and scale.
  std::string Serialize() const;
  static std::optional<TreeCounter> Deserialize(std::string_view text);

  static constexpr const char* kMechanismName = "binary_tree_discrete_laplace";

 private:
  TreeCounter(int version, int levels, uint64_t sensitivity, Rational epsilon, DiscreteLaplace noise);
  static std::optional<TreeCounter> CreateVersion(int version, int levels, uint64_t stream_sensitivity,
                                                  Rational epsilon);
  void AddWeighted(int64_t value, RandomSource& rng);
  void AddLegacy(int64_t value, RandomSource& rng);

  int version_;  // 2: all blocks noised, weighted; 1: "tree1" state
  int levels_;
  uint64_t sensitivity_;
  Rational epsilon_;
  DiscreteLaplace noise_;
  uint64_t t_ = 0;
  // Slot j describes the block of 2^j releases in the cover of [1, t] (bit j
  // of t set); slot `levels` is used at t = T only. alpha_ holds true sums.
  // est_ holds, for version 2, the block's estimate times its denominator
  // (2^(k+1) - 1 for a level-k block): the weights make that an integer, so
  // the state is exact; for version 1, the block's noisy sum.
  std::vector<int64_t> alpha_;
  std::vector<__int128> est_;
};

}  // namespace vanon::dp

#endif  // VANON_DP_TREE_COUNTER_H_
