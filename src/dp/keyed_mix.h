// A stable, data-independent choice of which cells a vehicle keeps when it
// touches more than L of them (per release in BoundedCounter, per window in
// WindowCounter): a SplitMix-style mix, deterministic so that a republished
// release is identical. Not a MAC: the choice needs to be stable, not secret.
#ifndef VANON_SRC_DP_KEYED_MIX_H_
#define VANON_SRC_DP_KEYED_MIX_H_

#include <cstdint>
#include <string_view>

namespace vanon::dp {

inline uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

inline uint64_t HashBytes(uint64_t key, std::string_view s) {
  uint64_t h = Mix64(key ^ 0x6a09e667f3bcc909ULL);
  for (unsigned char c : s) h = Mix64(h ^ c);
  return h;
}

}  // namespace vanon::dp

#endif  // VANON_SRC_DP_KEYED_MIX_H_
