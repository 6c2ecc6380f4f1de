#include "vanon/dp/discrete_laplace.h"

#include <cmath>

namespace vanon::dp {

bool BernoulliRational(RandomSource& rng, uint64_t num, uint64_t den) { return rng.UniformBelow(den) < num; }

namespace {

// exp(-gamma) for gamma = num/den in [0, 1] (CKS Algorithm 1): count how many
// successive Bernoulli(gamma/k) trials succeed; the first failure index K is
// odd with probability 1 - gamma + gamma^2/2! - ... = exp(-gamma).
// gamma/k is drawn as Bernoulli(num/den) AND Bernoulli(1/k), which avoids
// forming den*k (no overflow for any k).
bool BernoulliExpMinusAtMostOne(RandomSource& rng, uint64_t num, uint64_t den) {
  uint64_t k = 1;
  while (BernoulliRational(rng, num, den) && rng.UniformBelow(k) == 0) ++k;
  return k % 2 == 1;
}

}  // namespace

bool BernoulliExpMinus(RandomSource& rng, uint64_t num, uint64_t den) {
  // exp(-gamma) = exp(-1)^floor(gamma) * exp(-(gamma - floor(gamma))).
  for (uint64_t i = num / den; i > 0; --i) {
    if (!BernoulliExpMinusAtMostOne(rng, 1, 1)) return false;
  }
  return BernoulliExpMinusAtMostOne(rng, num % den, den);
}

std::optional<DiscreteLaplace> DiscreteLaplace::WithScale(Rational scale) {
  if (scale.num == 0 || scale.den == 0) return std::nullopt;
  auto reduced = Rational::Make(scale.num, scale.den);
  return DiscreteLaplace(reduced->num, reduced->den);
}

std::optional<DiscreteLaplace> DiscreteLaplace::ForQuery(uint64_t sensitivity, Rational epsilon) {
  if (sensitivity == 0 || epsilon.num == 0 || epsilon.den == 0) return std::nullopt;
  uint64_t num;
  if (__builtin_mul_overflow(sensitivity, epsilon.den, &num)) return std::nullopt;
  return WithScale(Rational{num, epsilon.num});
}

int64_t DiscreteLaplace::Sample(RandomSource& rng) const {
  // CKS Algorithm 2 with scale t/s. X = U + t*V is geometric on the
  // non-negative integers with ratio exp(-1/t) (U uniform below t accepted
  // with probability exp(-U/t), V geometric with ratio exp(-1)); Y = X / s
  // is then geometric with ratio exp(-s/t) = exp(-1/b). A random sign gives
  // the two-sided law, rejecting "-0" so that zero is not counted twice.
  for (;;) {
    const uint64_t u = rng.UniformBelow(t_);
    if (!BernoulliExpMinus(rng, u, t_)) continue;
    uint64_t v = 0;
    while (BernoulliExpMinus(rng, 1, 1)) ++v;
    const uint64_t x = u + t_ * v;
    const uint64_t y = x / s_;
    const bool negative = (rng.NextU64() & 1) != 0;
    if (negative && y == 0) continue;
    const int64_t magnitude = static_cast<int64_t>(y);
    return negative ? -magnitude : magnitude;
  }
}

double DiscreteLaplace::Variance() const {
  const double p = std::exp(-static_cast<double>(s_) / static_cast<double>(t_));
  return 2 * p / ((1 - p) * (1 - p));
}

double DiscreteLaplace::Pmf(int64_t x) const {
  const double p = std::exp(-static_cast<double>(s_) / static_cast<double>(t_));
  return (1 - p) / (1 + p) * std::pow(p, static_cast<double>(x < 0 ? -x : x));
}

}  // namespace vanon::dp
