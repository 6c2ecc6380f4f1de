// Running totals over releases with the binary tree mechanism (Dwork, Naor,
// Pitassi, Rothblum STOC 2010; Chan, Shi, Song TISSEC 2011).
//
// Release t (1-based) adds a true value x_t. The mechanism keeps noisy sums
// of dyadic blocks of releases ("p-sums"); the running total after t is the
// sum of the at most log2(T)+1 blocks that make up [1, t], so its error grows
// polylogarithmically in t instead of like sqrt(t) for summing independently
// noised per-release values at the same total epsilon.
//
// The guarantee covers the whole horizon of T = 2^levels releases with one
// epsilon. Each x_t sits in levels+1 blocks, so every block gets discrete
// Laplace noise of scale stream_sensitivity * (levels+1) / epsilon, where
// stream_sensitivity bounds how much one vehicle can change x_1..x_T in
// total (L1). That is small when a vehicle counts in few releases (e.g. "new
// vehicles first seen in release t"); when every vehicle counts in every
// release it is T times the per-release sensitivity, and the tree offers no
// gain over per-release noise - see docs/dp.md.

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
  static std::optional<TreeCounter> Create(int levels, uint64_t stream_sensitivity,
                                           Rational epsilon);

  // Adds the next release's true value; returns the noisy running total, or
  // nullopt once the horizon is used up (start a new counter and charge its
  // epsilon to the ledger).
  std::optional<int64_t> Add(int64_t value, RandomSource& rng);

  uint64_t releases() const { return t_; }
  uint64_t horizon() const { return uint64_t{1} << levels_; }
  const DiscreteLaplace& noise() const { return noise_; }
  // Noisy running total after the last Add (0 before the first).
  int64_t Current() const;

  // Text form holding the configuration, t and the true and noisy block sums
  // (state for the service to persist next to its release state; it contains
  // true sums and must stay internal).
  std::string Serialize() const;
  static std::optional<TreeCounter> Deserialize(std::string_view text);

  static constexpr const char* kMechanismName = "binary_tree_discrete_laplace";

 private:
  TreeCounter(int levels, uint64_t sensitivity, Rational epsilon, DiscreteLaplace noise);

  int levels_;
  uint64_t sensitivity_;
  Rational epsilon_;
  DiscreteLaplace noise_;
  uint64_t t_ = 0;
  std::vector<int64_t> alpha_;  // true block sums, one per level
  std::vector<int64_t> noisy_;  // alpha_ plus its noise
};

}  // namespace vanon::dp

#endif  // VANON_DP_TREE_COUNTER_H_
