#include "vanon/dp/random_source.h"

#include <openssl/rand.h>

#include <stdexcept>

namespace vanon::dp {

uint64_t RandomSource::UniformBelow(uint64_t n) {
  // Accept only draws from the largest multiple of n that fits in 2^64
  // values; 2^64 mod n == (-n) mod n in unsigned arithmetic.
  const uint64_t reject_below = (0 - n) % n;
  for (;;) {
    const uint64_t x = NextU64();
    if (x >= reject_below) return x % n;
  }
}

uint64_t OpenSslRandomSource::NextU64() {
  if (next_ == kBlockWords) {
    if (RAND_bytes(reinterpret_cast<unsigned char*>(block_), sizeof(block_)) != 1) {
      throw std::runtime_error("OpenSSL RAND_bytes failed: no secure randomness for DP noise");
    }
    next_ = 0;
  }
  const uint64_t v = block_[next_];
  block_[next_++] = 0;  // do not keep used randomness around
  return v;
}

namespace {

uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

SeededRandomSource::SeededRandomSource(uint64_t seed) {
  for (uint64_t& word : s_) word = SplitMix64(seed);
}

uint64_t SeededRandomSource::NextU64() {
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

}  // namespace vanon::dp
