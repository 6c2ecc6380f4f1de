#include "drifting_fleet.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace vanon::utility {

DriftShape ParseShape(const std::string& name) {
  if (name == "repertoire") return DriftShape::kRepertoire;
  if (name == "global") return DriftShape::kGlobal;
  throw std::invalid_argument("shape must be repertoire or global: " + name);
}

DriftingFleet::DriftingFleet(const FleetParams& params) : p_(params), state_(params.seed) {
  double sum = 0;
  for (uint32_t r = 0; r < p_.values; ++r) {
    sum += 1.0 / std::pow(r + 1.0, p_.zipf);
    cumulative_.push_back(sum);
  }
  for (double& c : cumulative_) c /= sum;
  const uint32_t repertoire = std::min(p_.repertoire, p_.values);
  for (uint32_t v = 0; v < p_.vehicles; ++v) {
    // Opaque fixed-length keys, as the service's HMACs are.
    keys_.push_back("k" + std::to_string(1000000 + v) + std::to_string(Next() % 100000));
    qi_.push_back({static_cast<int32_t>(Next() % 8), static_cast<int32_t>(2000 + Next() % 30),
                   static_cast<int32_t>(1 + Next() % 9)});
    std::vector<engine::SensitiveId> mine;
    while (mine.size() < repertoire) {
      const engine::SensitiveId s = Popular();
      if (std::find(mine.begin(), mine.end(), s) == mine.end()) mine.push_back(s);
    }
    favourite_.push_back(mine.front());
    repertoire_.push_back(std::move(mine));
  }
}

uint64_t DriftingFleet::Next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

engine::SensitiveId DriftingFleet::Popular() {
  const auto it = std::lower_bound(cumulative_.begin(), cumulative_.end(), Uniform());
  return static_cast<engine::SensitiveId>(
      std::min<ptrdiff_t>(it - cumulative_.begin(), static_cast<ptrdiff_t>(cumulative_.size()) - 1));
}

std::vector<EpochActivity> DriftingFleet::NextEpoch() {
  std::vector<EpochActivity> out;
  for (uint32_t v = 0; v < p_.vehicles; ++v) {
    std::vector<engine::SensitiveId>& mine = repertoire_[v];
    if (Uniform() < p_.drift) {
      if (p_.shape == DriftShape::kGlobal) {
        favourite_[v] = Popular();
      } else {
        if (Uniform() < p_.renew && mine.size() > 1) {
          // A new value enters the repertoire in place of one that is not
          // the favourite.
          const engine::SensitiveId fresh = Popular();
          if (std::find(mine.begin(), mine.end(), fresh) == mine.end()) {
            size_t slot = Next() % mine.size();
            if (mine[slot] == favourite_[v]) slot = (slot + 1) % mine.size();
            mine[slot] = fresh;
          }
        }
        std::vector<engine::SensitiveId> others;
        for (engine::SensitiveId s : mine) {
          if (s != favourite_[v]) others.push_back(s);
        }
        if (!others.empty()) favourite_[v] = others[Next() % others.size()];
      }
    }
    if (Uniform() >= p_.active) continue;
    EpochActivity a{v, {}};
    if (Uniform() >= p_.missing) {
      const uint32_t tracks = 1 + static_cast<uint32_t>(Next() % p_.max_tracks);
      for (uint32_t t = 0; t < tracks; ++t) {
        const double u = Uniform();
        engine::SensitiveId s;
        if (u < p_.favourite_share) {
          s = favourite_[v];
        } else if (u < p_.favourite_share + 0.25) {
          s = mine[Next() % mine.size()];
        } else {
          s = Popular();
        }
        auto it =
            std::find_if(a.tracks.begin(), a.tracks.end(), [&](const engine::ValueCount& c) { return c.value == s; });
        if (it == a.tracks.end()) {
          a.tracks.push_back({s, 1});
        } else {
          ++it->count;
        }
      }
    }
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace vanon::utility
