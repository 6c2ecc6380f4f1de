#include "artists.h"

#include <algorithm>

namespace vanon::fleet::internal {

namespace {

// A few names from seed 000 Table 4.6 and some with non-ASCII letters, so
// consumers see real UTF-8; the long tail is made of word pairs.
constexpr const char* kNamed[] = {"Radio",     "Taylor Swift", "Kid Cudi",  "Paul Kalkbrenner",
                                  "BLACKPINK", "Beyoncé",      "Sigur Rós", "Björk",
                                  "Rosalía",   "Mötley Crüe",  "Die Ärzte", "Hélène Ségara"};

constexpr const char* kFirst[] = {"Velvet",  "Electric", "Silent",   "Golden", "Neon",   "Crimson",
                                  "Paper",   "Lunar",    "Iron",     "Glass",  "Wild",   "Hollow",
                                  "Amber",   "Static",   "Midnight", "Copper", "Frozen", "Wandering",
                                  "Burning", "Distant",  "Rusty",    "Cosmic", "Violet", "Northern"};

constexpr const char* kSecond[] = {"Foxes",      "Harbor",  "Echoes",   "Pilots",  "Rivers", "Machines", "Tigers",
                                   "Gardens",    "Signals", "Lanterns", "Saints",  "Wolves", "Arcade",   "Orchard",
                                   "Tides",      "Comets",  "Horizon",  "Mirrors", "Parade", "Ghosts",   "Canyon",
                                   "Satellites", "Dunes",   "Atlas",    "Society"};

}  // namespace

ArtistCatalog::ArtistCatalog() {
  for (const char* name : kNamed) names_.emplace_back(name);
  for (const char* first : kFirst) {
    for (const char* second : kSecond) {
      names_.push_back(std::string("The ") + first + " " + second);
    }
  }
  uint64_t total = 0;
  cumulative_.reserve(names_.size());
  for (size_t rank = 0; rank < names_.size(); ++rank) {
    total += 1000000000ull / (rank + 1);
    cumulative_.push_back(total);
  }
}

uint32_t ArtistCatalog::Draw(base::Random& rng) const {
  const uint64_t u = rng.Below(cumulative_.back());
  return static_cast<uint32_t>(std::upper_bound(cumulative_.begin(), cumulative_.end(), u) - cumulative_.begin());
}

}  // namespace vanon::fleet::internal
