// One way of turning a fleet's epochs into releases, as the service does:
// a value per active vehicle (aggregator + missing policy), the pure engine,
// signatures and waiting tuples carried to the next release, and the
// independent checker on every release.
#ifndef VANON_LOADTEST_UTILITY_PIPELINE_H_
#define VANON_LOADTEST_UTILITY_PIPELINE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "drifting_fleet.h"
#include "vanon/engine/checker.h"
#include "vanon/engine/release.h"
#include "vanon/engine/value_window.h"

namespace vanon::utility {

struct ReleaseRow {
  double suppression = 0, conflict = 0, delay = 0, ineligible = 0;
  double counterfeit_ratio = 0, ncp = 0;
  uint64_t min_real = 0, groups = 0, published = 0, violations = 0;
  uint64_t tuples = 0, counterfeits = 0;
  // Signature buckets after the release (docs/utility.md section 2b): stored
  // signatures' vehicles per signature value, summed over distinct
  // signatures, and the share of vehicles whose bucket holds more vehicles
  // than its signature has values (only those can absorb an absent member
  // without a counterfeit).
  double vehicles_per_slot = 0, shared = 0;
};

struct PipelineOptions {
  uint32_t window = 6;         // epochs of the windowed mode
  uint32_t history_slots = 6;  // ReleaseParams::history_slots
  uint32_t learn_events = 10;  // ReleaseParams::history_min_events
  uint64_t horizon = 0;        // > 0: a fourth pipeline, history + this horizon
  double min_share = 0.04;     // ReleaseParams::history_min_share
  uint32_t learn_delay = 3;    // ReleaseParams::max_delay of the history pipeline
  // > 0: a pipeline "shared", window + learning + this many shared
  // signatures of shared_size values (ReleaseParams::shared_signatures),
  // and "shared0", today's aggregator with shared signatures only (what the
  // service runs: it keeps no histories).
  uint32_t shared = 0;
  uint32_t shared_size = 0;
};

// A way of publishing the fleet release after release: the service's
// (service_pipeline.h) or a pure-engine one kept for comparison (Pipeline).
class UtilityPipeline {
 public:
  virtual ~UtilityPipeline() = default;
  virtual ReleaseRow Release(uint64_t release, const std::vector<EpochActivity>& epoch, const DriftingFleet& fleet) = 0;
  virtual const std::string& name() const = 0;
  // The checker's findings on the last release.
  virtual const std::vector<std::string>& last_violations() const = 0;
};

class Pipeline final : public UtilityPipeline {
 public:
  // `epoch_mode`: today's aggregator (mode of the epoch, ties to the first
  // occurrence, missing value when no event carries the field).
  // Not movable: the checker keeps a reference to the schema.
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;
  Pipeline(std::string name, bool epoch_mode, engine::WindowParams window, engine::ReleaseParams params,
           uint32_t vehicles);

  ReleaseRow Release(uint64_t release, const std::vector<EpochActivity>& epoch, const DriftingFleet& fleet) override;

  const std::string& name() const override { return name_; }
  const std::vector<std::string>& last_violations() const override { return violations_; }

 private:
  std::string name_;
  bool epoch_mode_;
  engine::WindowParams window_;
  std::vector<engine::ValueWindow> windows_;        // by vehicle: the state the service keeps per HMAC
  std::map<std::string, uint32_t> index_;           // key -> vehicle number
  std::map<std::string, uint64_t> last_published_;  // with a horizon: key -> release
  engine::ReleaseInput in_;
  engine::Schema schema_;
  engine::ReleaseChecker checker_;
  std::vector<std::string> violations_;
};

// current: today's service and engine. window: windowed mode and carried
// values, today's engine. history: window plus history-aware signatures.
// horizon (only with options.horizon > 0): history, and a signature is
// dropped once its vehicle has not been published for more than the horizon,
// as the service's retention purge does (a weaker guarantee: docs/utility.md).
std::vector<std::unique_ptr<UtilityPipeline>> MakePipelines(uint32_t m, const PipelineOptions& options, uint32_t values,
                                                            uint32_t vehicles);

// The benchmark's QIs: engine type (8 leaves), model year (5-year bins),
// seats (split on demand), as in the engine tests.
engine::Schema UtilitySchema();

// Fills row->vehicles_per_slot and row->shared from the stored signatures'
// buckets (vehicles per distinct signature).
void MeasureBuckets(const std::map<engine::Signature, uint64_t>& buckets, ReleaseRow* row);

}  // namespace vanon::utility

#endif  // VANON_LOADTEST_UTILITY_PIPELINE_H_
