// A synthetic fleet whose favourite sensitive value drifts from epoch to
// epoch: the stream the utility benchmark feeds to both pipelines.
//
// Each vehicle has fixed QIs, a small repertoire of values it plays and a
// favourite among them. Per epoch: active with probability `active`; an
// active vehicle has no event with the sensitive field with probability
// `missing`, else plays 1..max_tracks tracks, each its favourite, another
// value of its repertoire, or any value by popularity. With probability
// `drift` per epoch the favourite changes: to another value of the
// repertoire (shape "repertoire", which also renews a repertoire value now
// and then) or to any value by popularity (shape "global", memoryless).
#ifndef VANON_LOADTEST_UTILITY_DRIFTING_FLEET_H_
#define VANON_LOADTEST_UTILITY_DRIFTING_FLEET_H_

#include <cstdint>
#include <string>
#include <vector>

#include "vanon/engine/release.h"

namespace vanon::utility {

enum class DriftShape { kRepertoire, kGlobal };

struct FleetParams {
  uint32_t vehicles = 2000;
  uint32_t values = 30;  // artists; popularity ~ 1/rank^zipf
  double zipf = 1.0;
  uint32_t repertoire = 4;  // values a vehicle plays
  double drift = 0.05;      // favourite changes, per vehicle and epoch
  DriftShape shape = DriftShape::kRepertoire;
  double renew = 0.2;  // repertoire shape: a drift also renews a value
  double active = 0.9;
  double missing = 0.10;  // active without the sensitive field
  uint32_t max_tracks = 5;
  double favourite_share = 0.6;  // of tracks; then 0.25 repertoire, rest popularity
  uint64_t seed = 1;
};

// One active vehicle in one epoch: its QIs and tracks per value (empty when
// no event carried the field).
struct EpochActivity {
  uint32_t vehicle;
  std::vector<engine::ValueCount> tracks;
};

class DriftingFleet {
 public:
  explicit DriftingFleet(const FleetParams& params);

  // The next epoch's activity, in vehicle order. Deterministic per seed.
  std::vector<EpochActivity> NextEpoch();

  const std::string& key(uint32_t vehicle) const { return keys_[vehicle]; }
  const std::vector<int32_t>& qi(uint32_t vehicle) const { return qi_[vehicle]; }
  // The hidden state an oracle would know (oracle_bound.py).
  engine::SensitiveId favourite(uint32_t vehicle) const { return favourite_[vehicle]; }
  const std::vector<engine::SensitiveId>& repertoire(uint32_t vehicle) const { return repertoire_[vehicle]; }
  const FleetParams& params() const { return p_; }

 private:
  uint64_t Next();
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  engine::SensitiveId Popular();

  FleetParams p_;
  uint64_t state_;
  std::vector<double> cumulative_;  // popularity CDF over value ids
  std::vector<std::string> keys_;
  std::vector<std::vector<int32_t>> qi_;
  std::vector<std::vector<engine::SensitiveId>> repertoire_;
  std::vector<engine::SensitiveId> favourite_;
};

DriftShape ParseShape(const std::string& name);  // "repertoire" | "global"

}  // namespace vanon::utility

#endif  // VANON_LOADTEST_UTILITY_DRIFTING_FLEET_H_
