// The DP counts of one release: true counts for every configured query,
// bounded per vehicle, then noised with the release's epsilon.
//
// The release epsilon is split evenly over the noisy measurements (one per
// count query, two per ratio), which is sequential composition: a vehicle is
// in all of them. Charging that epsilon to the BudgetLedger before calling
// Publish() is the caller's job.

#ifndef VANON_DP_DP_RELEASE_H_
#define VANON_DP_DP_RELEASE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "vanon/dp/bounded_counter.h"
#include "vanon/dp/count_query.h"
#include "vanon/dp/count_record.h"
#include "vanon/dp/epsilon.h"
#include "vanon/dp/random_source.h"
#include "vanon/dp/value_ids.h"

namespace vanon::dp {

struct DpPlan {
  std::vector<CountQuery> counts;
  std::vector<RatioQuery> ratios;
  // Keys the choice of kept cells (bounded_counter.h); derive it from the
  // service secret so it is stable across restarts.
  uint64_t selection_key = 0;

  uint64_t Measurements() const { return counts.size() + 2 * ratios.size(); }
};

// nullopt when valid, else the first problem.
std::optional<std::string> ValidatePlan(const DpPlan& plan, int64_t epoch_ms);

struct DpReleaseResult {
  std::vector<DpCountRecord> records;
  uint64_t contributions_cut = 0;  // for vanon_dp_contributions_cut_total
  uint64_t out_of_domain = 0;
};

class DpRelease {
 public:
  // `plan` must pass ValidatePlan.
  DpRelease(const DpPlan& plan, uint64_t release_id, int64_t epoch_start_ms, int64_t epoch_end_ms);
  // Counts already gathered elsewhere (a DP window's WindowCounters), one per
  // measurement in the order of counters() below.
  DpRelease(const DpPlan& plan, uint64_t release_id, std::vector<BoundedCounter> counters);

  // All events of one vehicle in this epoch, suppressed vehicles included.
  void AddVehicle(std::string_view vehicle, std::span<const DpEvent> events);
  // The same with the events resolved by values() (ValueIds: a service
  // resolves its own events without writing them out as DpEvents).
  void AddResolvedVehicle(std::string_view vehicle, const ResolvedEvents& events);
  const ValueIds& values() const { return *values_; }

  // nullopt when release_epsilon is zero or a noise scale overflows.
  std::optional<DpReleaseResult> Publish(Epsilon release_epsilon, RandomSource& rng) const;

  // True counts, for tests and offline evaluation only.
  const std::vector<BoundedCounter>& counters() const { return counters_; }

 private:
  const DpPlan& plan_;
  uint64_t release_id_;
  // counts first, then numerator and denominator of each ratio.
  std::vector<BoundedCounter> counters_;
  // The plan's interned values, which every counter is bound to, and the
  // scratch of AddVehicle.
  std::shared_ptr<ValueIds> values_;
  ResolvedEvents resolved_;
};

}  // namespace vanon::dp

#endif  // VANON_DP_DP_RELEASE_H_
