#include "vanon/dp/tree_counter.h"

#include <charconv>
#include <sstream>

namespace vanon::dp {

std::optional<TreeCounter> TreeCounter::Create(int levels, uint64_t stream_sensitivity,
                                               Rational epsilon) {
  if (levels < 1 || levels > kMaxLevels) return std::nullopt;
  uint64_t node_sensitivity;
  if (__builtin_mul_overflow(stream_sensitivity, static_cast<uint64_t>(levels + 1), &node_sensitivity)) {
    return std::nullopt;
  }
  auto noise = DiscreteLaplace::ForQuery(node_sensitivity, epsilon);
  if (!noise) return std::nullopt;
  return TreeCounter(levels, stream_sensitivity, epsilon, *noise);
}

TreeCounter::TreeCounter(int levels, uint64_t sensitivity, Rational epsilon, DiscreteLaplace noise)
    : levels_(levels),
      sensitivity_(sensitivity),
      epsilon_(epsilon),
      noise_(noise),
      alpha_(levels + 1, 0),
      noisy_(levels + 1, 0) {}

std::optional<int64_t> TreeCounter::Add(int64_t value, RandomSource& rng) {
  if (t_ >= horizon()) return std::nullopt;
  ++t_;
  // The block ending at t on level i = lowest set bit of t merges the
  // blocks below it, which are then complete and no longer needed.
  const int level = __builtin_ctzll(t_);
  int64_t sum = value;
  for (int j = 0; j < level; ++j) {
    sum += alpha_[j];
    alpha_[j] = 0;
    noisy_[j] = 0;
  }
  alpha_[level] = sum;
  noisy_[level] = sum + noise_.Sample(rng);
  return Current();
}

int64_t TreeCounter::Current() const {
  int64_t total = 0;
  for (int j = 0; j <= levels_; ++j) {
    if ((t_ >> j) & 1) total += noisy_[j];
  }
  return total;
}

std::string TreeCounter::Serialize() const {
  std::ostringstream out;
  out << "tree1 " << levels_ << ' ' << sensitivity_ << ' ' << epsilon_.num << ' ' << epsilon_.den
      << ' ' << t_;
  for (int j = 0; j <= levels_; ++j) out << ' ' << alpha_[j] << ' ' << noisy_[j];
  return out.str();
}

std::optional<TreeCounter> TreeCounter::Deserialize(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::string magic;
  int levels;
  uint64_t sensitivity, num, den, t;
  if (!(in >> magic >> levels >> sensitivity >> num >> den >> t) || magic != "tree1") {
    return std::nullopt;
  }
  auto eps = Rational::Make(num, den);
  if (!eps) return std::nullopt;
  auto counter = Create(levels, sensitivity, *eps);
  if (!counter || t > counter->horizon()) return std::nullopt;
  counter->t_ = t;
  for (int j = 0; j <= levels; ++j) {
    if (!(in >> counter->alpha_[j] >> counter->noisy_[j])) return std::nullopt;
  }
  std::string rest;
  if (in >> rest) return std::nullopt;
  return counter;
}

}  // namespace vanon::dp
