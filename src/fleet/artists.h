// The artist catalogue of the synthetic fleet: "Radio" plus ~600 names,
// drawn with Zipf weights (rank r has weight 1/(r+1)), so a few artists
// are common and most are rare, like the >600 artists of seed 000.
#ifndef VANON_SRC_FLEET_ARTISTS_H_
#define VANON_SRC_FLEET_ARTISTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "base/random.h"

namespace vanon::fleet::internal {

class ArtistCatalog {
 public:
  ArtistCatalog();

  const std::vector<std::string>& names() const { return names_; }
  // An index into names(), Zipf-distributed.
  uint32_t Draw(base::Random& rng) const;

 private:
  std::vector<std::string> names_;
  std::vector<uint64_t> cumulative_;  // integer weights, running sum
};

}  // namespace vanon::fleet::internal

#endif  // VANON_SRC_FLEET_ARTISTS_H_
