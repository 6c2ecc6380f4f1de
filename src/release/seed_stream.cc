#include "vanon/release/seed_stream.h"

#include <openssl/rand.h>
#include <openssl/sha.h>

#include <stdexcept>

namespace vanon::release {

ReleaseSeed NewReleaseSeed() {
  ReleaseSeed seed;
  if (RAND_bytes(seed.data(), static_cast<int>(seed.size())) != 1) {
    throw std::runtime_error("RAND_bytes failed: cannot draw a release seed");
  }
  return seed;
}

uint64_t SeedStream::NextU64() {
  if (next_ == block_.size()) {
    uint8_t input[sizeof(ReleaseSeed) + 8];
    std::copy(seed_.begin(), seed_.end(), input);
    for (int i = 0; i < 8; ++i) input[seed_.size() + i] = static_cast<uint8_t>(counter_ >> (8 * i));
    ++counter_;
    uint8_t digest[SHA256_DIGEST_LENGTH];
    SHA256(input, sizeof(input), digest);
    for (size_t w = 0; w < block_.size(); ++w) {
      uint64_t v = 0;
      for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(digest[w * 8 + i]) << (8 * i);
      block_[w] = v;
    }
    next_ = 0;
  }
  return block_[next_++];
}

}  // namespace vanon::release
