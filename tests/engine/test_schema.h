// Small schema and helpers shared by the engine tests.
#ifndef VANON_TESTS_ENGINE_TEST_SCHEMA_H_
#define VANON_TESTS_ENGINE_TEST_SCHEMA_H_

#include <memory>
#include <string>
#include <vector>

#include "vanon/engine/release.h"
#include "vanon/engine/schema.h"

namespace vanon::testing {

// engine (8 leaves under 3 inner nodes), model year (fixed 5-year bins),
// seats (split on demand).
inline engine::Schema TestSchema() {
  auto engine = std::make_shared<engine::CategoricalHierarchy>(
      engine::CategoricalHierarchy::FromRows({{"BEV", "Electric", "Electrified", "*"},
                                              {"FCEV", "Electric", "Electrified", "*"},
                                              {"PHEV", "Hybrid", "Electrified", "*"},
                                              {"MHEV", "Hybrid", "Electrified", "*"},
                                              {"HEV", "Hybrid", "Electrified", "*"},
                                              {"Petrol", "Otto", "Combustion", "*"},
                                              {"CNG", "Otto", "Combustion", "*"},
                                              {"Diesel", "Diesel", "Combustion", "*"}},
                                             "engine"));
  return engine::Schema({engine::QiAttribute{"engine", engine, {}},
                         engine::QiAttribute{"year", nullptr, engine::NumericDomain{2000, 2029, 5}},
                         engine::QiAttribute{"seats", nullptr, engine::NumericDomain{1, 9, 0}}});
}

// Deterministic generator for tests (splitmix64); no std:: distributions so
// sequences are the same on every platform.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint32_t Below(uint32_t n) { return static_cast<uint32_t>(Next() % n); }
  bool Chance(uint32_t percent) { return Below(100) < percent; }

 private:
  uint64_t state_;
};

// Feeds a release's output back as the next input's state, as the service does.
inline void CarryState(const engine::ReleaseInput& in, const engine::ReleaseOutput& out, engine::ReleaseInput* next) {
  next->known_signatures = in.known_signatures;
  for (const auto& [vehicle, sig] : out.new_signatures) next->known_signatures[vehicle] = sig;
  next->waiting.clear();
  for (const engine::StillWaiting& w : out.waiting) {
    next->waiting.push_back(engine::WaitingTuple{ResolveTuple(in, w.ref), w.first_release});
  }
}

}  // namespace vanon::testing

#endif  // VANON_TESTS_ENGINE_TEST_SCHEMA_H_
