// Random values for a release (tuple tokens, group ids, tuple order) come
// from a RandomSource. In production the service draws one ReleaseSeed from
// the OS CSPRNG per release, stores it with the release's state, and reads
// every random value from a SeedStream over it: tokens are unpredictable,
// and a republication after a crash, from the stored seed, is byte-identical.
#ifndef VANON_RELEASE_SEED_STREAM_H_
#define VANON_RELEASE_SEED_STREAM_H_

#include <array>
#include <cstdint>

#include "vanon/dp/random_source.h"

namespace vanon::release {

using ReleaseSeed = std::array<uint8_t, 32>;

// OpenSSL RAND_bytes. Throws std::runtime_error if OpenSSL fails.
ReleaseSeed NewReleaseSeed();

// SHA-256(seed || block counter) in counter mode, four words per block.
// Deterministic for a seed and as unpredictable as the seed is secret.
class SeedStream final : public dp::RandomSource {
 public:
  explicit SeedStream(const ReleaseSeed& seed) : seed_(seed) {}
  uint64_t NextU64() override;

 private:
  ReleaseSeed seed_;
  uint64_t counter_ = 0;
  std::array<uint64_t, 4> block_{};
  size_t next_ = 4;  // empty: refill on first use
};

}  // namespace vanon::release

#endif  // VANON_RELEASE_SEED_STREAM_H_
