#include "vanon/dp/tree_counter.h"

#include <cmath>
#include <limits>
#include <sstream>

namespace vanon::dp {

namespace {

// Denominator of a level-k block's estimate: 2^(k+1) - 1.
__int128 Denominator(int level) { return (__int128{1} << (level + 1)) - 1; }

std::string ToDecimal(__int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  unsigned __int128 u = negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string digits;
  while (u > 0) {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  return negative ? "-" + digits : digits;
}

// Parses an optionally negative decimal of at most 32 digits. A level-k
// estimate is about 2^(k+1) times a block's true sum of int64 counts, so
// real ones stay below 2^104 (about 2e31); stored ones may be damaged or
// crafted, and 32 digits (below 2^107) keep Current()'s sum of up to 41 of
// them and AddWeighted's sums of three far inside __int128 (38 digits, the
// earlier limit, let two of them overflow it).
bool ParseDecimal(const std::string& text, __int128* out) {
  size_t i = text.size() > 0 && text[0] == '-' ? 1 : 0;
  if (i == text.size() || text.size() - i > 32) return false;
  __int128 v = 0;
  for (; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    v = v * 10 + (text[i] - '0');
  }
  *out = text[0] == '-' ? -v : v;
  return true;
}

}  // namespace

std::optional<TreeCounter> TreeCounter::Create(int levels, uint64_t stream_sensitivity, Rational epsilon) {
  return CreateVersion(2, levels, stream_sensitivity, epsilon);
}

std::optional<TreeCounter> TreeCounter::CreateVersion(int version, int levels, uint64_t stream_sensitivity,
                                                      Rational epsilon) {
  if (levels < 1 || levels > kMaxLevels) return std::nullopt;
  // Privacy accounting: one vehicle changes x_1..x_T by at most
  // stream_sensitivity in L1, and each x_t is in `levels` noisy sums
  // (version 2: one block per level 0..levels-1; version 1 also noised the
  // level-`levels` block). The vector of all noisy sums thus has L1
  // sensitivity stream_sensitivity * blocks_per_release.
  const uint64_t blocks_per_release = static_cast<uint64_t>(version == 2 ? levels : levels + 1);
  uint64_t node_sensitivity;
  if (__builtin_mul_overflow(stream_sensitivity, blocks_per_release, &node_sensitivity)) {
    return std::nullopt;
  }
  auto noise = DiscreteLaplace::ForQuery(node_sensitivity, epsilon);
  if (!noise) return std::nullopt;
  return TreeCounter(version, levels, stream_sensitivity, epsilon, *noise);
}

TreeCounter::TreeCounter(int version, int levels, uint64_t sensitivity, Rational epsilon, DiscreteLaplace noise)
    : version_(version),
      levels_(levels),
      sensitivity_(sensitivity),
      epsilon_(epsilon),
      noise_(noise),
      alpha_(levels + 1, 0),
      est_(levels + 1, 0) {}

std::optional<int64_t> TreeCounter::Add(int64_t value, RandomSource& rng) {
  if (t_ >= horizon()) return std::nullopt;
  ++t_;
  if (version_ == 2) {
    AddWeighted(value, rng);
  } else {
    AddLegacy(value, rng);
  }
  return Current();
}

// Release t completes the blocks ending at t on levels 0..top, top =
// min(ctz(t), levels-1); each gets fresh noise. Going up, the level-k block's
// children are the level-(k-1) block of the previous cover (left, in slot
// k-1) and the one just completed (right). With all noisy sums of variance v
// and children estimates of variance v_{k-1} = v 2^(k-1) / (2^k - 1), the
// inverse-variance weights are 2^k / (2^(k+1) - 1) for the block's own noisy
// sum n and (2^k - 1) / (2^(k+1) - 1) for the children's sum. Scaled by the
// denominator 2^(k+1) - 1 the estimate is E_k = 2^k n + E_left + E_right,
// an integer, and its variance is v 2^k / (2^(k+1) - 1).
void TreeCounter::AddWeighted(int64_t value, RandomSource& rng) {
  const int carry = __builtin_ctzll(t_);
  const int top = carry < levels_ ? carry : levels_ - 1;
  int64_t sum = value;
  __int128 est = static_cast<__int128>(value) + noise_.Sample(rng);
  for (int k = 1; k <= top; ++k) {
    sum += alpha_[k - 1];
    const __int128 noisy = static_cast<__int128>(sum) + noise_.Sample(rng);
    est = (noisy << k) + est_[k - 1] + est;
    alpha_[k - 1] = 0;
    est_[k - 1] = 0;
  }
  if (carry == levels_) {
    // t = T: the two level-(levels-1) halves are the total; no noisy sum
    // of their own, so the estimate is just their sum (same denominator).
    alpha_[levels_] = alpha_[levels_ - 1] + sum;
    est_[levels_] = est_[levels_ - 1] + est;
    alpha_[levels_ - 1] = 0;
    est_[levels_ - 1] = 0;
  } else {
    alpha_[top] = sum;
    est_[top] = est;
  }
}

// The "tree1" algorithm, kept so that a counter persisted by an earlier
// version finishes its horizon with the noise it was charged for: one noisy
// sum per release, for the block on level ctz(t), levels 0..levels.
void TreeCounter::AddLegacy(int64_t value, RandomSource& rng) {
  const int level = __builtin_ctzll(t_);
  int64_t sum = value;
  for (int j = 0; j < level; ++j) {
    sum += alpha_[j];
    alpha_[j] = 0;
    est_[j] = 0;
  }
  alpha_[level] = sum;
  est_[level] = static_cast<__int128>(sum) + noise_.Sample(rng);
}

int64_t TreeCounter::Current() const {
  if (version_ != 2) {
    __int128 total = 0;
    for (int j = 0; j <= levels_; ++j) {
      if ((t_ >> j) & 1) total += est_[j];
    }
    return static_cast<int64_t>(total);
  }
  // Sum of est_[j] / denominator over the cover: whole parts exactly, the
  // fractional parts (each in [0, 1)) in double, then round to nearest.
  __int128 whole = 0;
  double fraction = 0;
  for (int j = 0; j <= levels_; ++j) {
    if (((t_ >> j) & 1) == 0) continue;
    const __int128 d = Denominator(j < levels_ ? j : levels_ - 1);
    __int128 q = est_[j] / d;
    __int128 r = est_[j] % d;
    if (r < 0) {
      q -= 1;
      r += d;
    }
    whole += q;
    fraction += static_cast<double>(r) / static_cast<double>(d);
  }
  return static_cast<int64_t>(whole + static_cast<__int128>(std::llround(fraction)));
}

std::string TreeCounter::Serialize() const {
  std::ostringstream out;
  out << "tree" << version_ << ' ' << levels_ << ' ' << sensitivity_ << ' ' << epsilon_.num << ' ' << epsilon_.den
      << ' ' << t_;
  for (int j = 0; j <= levels_; ++j) out << ' ' << alpha_[j] << ' ' << ToDecimal(est_[j]);
  return out.str();
}

std::optional<TreeCounter> TreeCounter::Deserialize(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::string magic;
  int levels;
  uint64_t sensitivity, num, den, t;
  if (!(in >> magic >> levels >> sensitivity >> num >> den >> t)) return std::nullopt;
  int version;
  if (magic == "tree2") {
    version = 2;
  } else if (magic == "tree1") {
    version = 1;
  } else {
    return std::nullopt;
  }
  auto eps = Rational::Make(num, den);
  if (!eps) return std::nullopt;
  auto counter = CreateVersion(version, levels, sensitivity, *eps);
  if (!counter || t > counter->horizon()) return std::nullopt;
  counter->t_ = t;
  // The true block sums add up counts: never negative, and together far
  // below int64 (half of it is 4.6e18 counted units). A stored state beyond
  // that is damaged or crafted, and Add() would overflow int64 summing it.
  __int128 total = 0;
  for (int j = 0; j <= levels; ++j) {
    std::string est;
    if (!(in >> counter->alpha_[j] >> est) || !ParseDecimal(est, &counter->est_[j])) return std::nullopt;
    if (counter->alpha_[j] < 0) return std::nullopt;
    total += counter->alpha_[j];
  }
  if (total > std::numeric_limits<int64_t>::max() / 2) return std::nullopt;
  std::string rest;
  if (in >> rest) return std::nullopt;
  return counter;
}

}  // namespace vanon::dp
