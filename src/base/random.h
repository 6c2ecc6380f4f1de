// The one pseudo-random generator: xoshiro256** (Blackman, Vigna 2018)
// seeded through splitmix64 (Steele, Lea, Flood 2014). Plain integer
// arithmetic, so a seed gives the same stream with every standard library
// (<random>'s distributions do not). Predictable by design: for the fleet
// simulator, tests and per-release seeded streams; DP noise published in
// production draws from OpenSSL instead (dp::OpenSslRandomSource).

#ifndef VANON_SRC_BASE_RANDOM_H_
#define VANON_SRC_BASE_RANDOM_H_

#include <cstdint>

namespace vanon::base {

// Advances `state` and returns a well-mixed word: expands one seed into
// many, and derives independent sub-stream seeds.
inline uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class Random {
 public:
  explicit Random(uint64_t seed) {
    for (uint64_t& word : s_) word = SplitMix64(seed);
  }

  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }

  // Uniform-enough in [0, n) by multiply-shift (Lemire); the bias, at most
  // n / 2^64, is irrelevant for a simulation. n > 0. (Exact sampling for DP
  // is dp::RandomSource::UniformBelow.)
  uint64_t Below(uint64_t n) { return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >> 64); }

  // True with probability `threshold` / 2^64 (see ChanceThreshold).
  bool Chance(uint64_t threshold) { return threshold != 0 && Next() <= threshold - 1; }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

// Threshold for Random::Chance with probability p in [0, 1]; p = 1 is
// rounded to 1 - 2^-64, which no test can tell apart.
inline uint64_t ChanceThreshold(double p) {
  if (!(p > 0)) return 0;
  if (p >= 1) return UINT64_MAX;
  return static_cast<uint64_t>(p * 18446744073709551616.0);
}

}  // namespace vanon::base

#endif  // VANON_SRC_BASE_RANDOM_H_
