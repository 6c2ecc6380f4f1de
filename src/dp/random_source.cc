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

}  // namespace vanon::dp
