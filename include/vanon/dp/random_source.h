// Sources of uniform random bits for the DP noise samplers.
//
// Samplers never call a global generator: they take a RandomSource so that
// production draws from the operating system's CSPRNG while tests replay a
// fixed seed and get the same draws on every run.

#ifndef VANON_DP_RANDOM_SOURCE_H_
#define VANON_DP_RANDOM_SOURCE_H_

#include <cstddef>
#include <cstdint>

#include "base/random.h"

namespace vanon::dp {

class RandomSource {
 public:
  virtual ~RandomSource() = default;

  // 64 independent, uniformly distributed bits.
  virtual uint64_t NextU64() = 0;

  // Uniform integer in [0, n); n must be > 0. Exact (rejection sampling, no
  // modulo bias).
  uint64_t UniformBelow(uint64_t n);
};

// OpenSSL RAND_bytes (a CSPRNG seeded by the OS). Reads in blocks to amortize
// the call; throws std::runtime_error if OpenSSL reports a failure, because
// publishing with a broken noise source would silently void the guarantee.
class OpenSslRandomSource final : public RandomSource {
 public:
  OpenSslRandomSource() = default;
  OpenSslRandomSource(const OpenSslRandomSource&) = delete;
  OpenSslRandomSource& operator=(const OpenSslRandomSource&) = delete;

  uint64_t NextU64() override;

 private:
  static constexpr size_t kBlockWords = 64;
  uint64_t block_[kBlockWords] = {};
  size_t next_ = kBlockWords;  // empty: refill on first use
};

// Deterministic (vanon::Random: xoshiro256** seeded through SplitMix64). For
// tests, simulations and per-release seeded streams: it is predictable and
// must never produce noise from a secret seed the OS did not provide.
class SeededRandomSource final : public RandomSource {
 public:
  explicit SeededRandomSource(uint64_t seed) : random_(seed) {}

  uint64_t NextU64() override { return random_.Next(); }

 private:
  base::Random random_;
};

}  // namespace vanon::dp

#endif  // VANON_DP_RANDOM_SOURCE_H_
