// Exact discrete Laplace (two-sided geometric) noise.
//
// P[X = x] = (1 - p) / (1 + p) * p^|x| with p = exp(-1/b) for integer x,
// where the scale b = sensitivity / epsilon is a rational t/s. Sampling
// follows Canonne, Kamath and Steinke, "The Discrete Gaussian for
// Differential Privacy" (NeurIPS 2020), Algorithms 1 and 2: every step is an
// integer comparison against uniform integers, so the output distribution is
// exactly the one above. Floating point is never used to draw noise (the
// classic "round a continuous Laplace sample" approach leaks through the
// floating-point grid, Mironov CCS 2012). See docs/dp.md.

#ifndef VANON_DP_DISCRETE_LAPLACE_H_
#define VANON_DP_DISCRETE_LAPLACE_H_

#include <cstdint>
#include <optional>

#include "vanon/dp/epsilon.h"
#include "vanon/dp/random_source.h"

namespace vanon::dp {

class DiscreteLaplace {
 public:
  // Scale b = scale.num / scale.den; both must be > 0.
  static std::optional<DiscreteLaplace> WithScale(Rational scale);

  // Scale sensitivity / epsilon. nullopt when either is zero or the scale's
  // numerator would overflow 64 bits.
  static std::optional<DiscreteLaplace> ForQuery(uint64_t sensitivity, Rational epsilon);

  int64_t Sample(RandomSource& rng) const;

  Rational scale() const { return Rational{t_, s_}; }
  // Theoretical moments (floating point, for reports and tests only).
  double Variance() const;
  double Pmf(int64_t x) const;

  static constexpr const char* kMechanismName = "discrete_laplace";

 private:
  DiscreteLaplace(uint64_t t, uint64_t s) : t_(t), s_(s) {}
  uint64_t t_;  // scale numerator
  uint64_t s_;  // scale denominator
};

// Exact Bernoulli trials used by the sampler, exposed for tests.
// True with probability num/den (0 < den, num <= den).
bool BernoulliRational(RandomSource& rng, uint64_t num, uint64_t den);
// True with probability exp(-num/den) for any num >= 0, den > 0.
bool BernoulliExpMinus(RandomSource& rng, uint64_t num, uint64_t den);

}  // namespace vanon::dp

#endif  // VANON_DP_DISCRETE_LAPLACE_H_
