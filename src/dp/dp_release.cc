#include "vanon/dp/dp_release.h"

#include <algorithm>

#include "vanon/dp/discrete_laplace.h"
#include "vanon/dp/postprocess.h"

namespace vanon::dp {

std::optional<std::string> ValidatePlan(const DpPlan& plan, int64_t epoch_ms) {
  std::vector<std::string> names;
  for (const CountQuery& q : plan.counts) {
    if (auto err = ValidateQuery(q, epoch_ms)) return err;
    names.push_back(q.name);
  }
  for (const RatioQuery& r : plan.ratios) {
    if (r.name.empty()) return "dp kpi without a name";
    if (auto err = ValidateRatio(r, epoch_ms)) return err;
    names.push_back(r.name);
  }
  std::sort(names.begin(), names.end());
  if (std::adjacent_find(names.begin(), names.end()) != names.end()) {
    return "dp query and kpi names must be unique";
  }
  return std::nullopt;
}

DpRelease::DpRelease(const DpPlan& plan, uint64_t release_id, int64_t epoch_start_ms, int64_t epoch_end_ms)
    : plan_(plan), release_id_(release_id), values_(std::make_shared<ValueIds>()) {
  for (const CountQuery& q : plan.counts) {
    counters_.emplace_back(q, epoch_start_ms, epoch_end_ms, plan.selection_key);
  }
  for (const RatioQuery& r : plan.ratios) {
    counters_.emplace_back(r.numerator, epoch_start_ms, epoch_end_ms, plan.selection_key);
    counters_.emplace_back(r.denominator, epoch_start_ms, epoch_end_ms, plan.selection_key);
  }
  for (BoundedCounter& c : counters_) c.Bind(values_);
}

DpRelease::DpRelease(const DpPlan& plan, uint64_t release_id, std::vector<BoundedCounter> counters)
    : plan_(plan), release_id_(release_id), counters_(std::move(counters)), values_(std::make_shared<ValueIds>()) {
  for (BoundedCounter& c : counters_) c.Bind(values_);
}

void DpRelease::AddVehicle(std::string_view vehicle, std::span<const DpEvent> events) {
  if (counters_.empty()) return;
  values_->ResolveAll(events, &resolved_);
  AddResolvedVehicle(vehicle, resolved_);
}

void DpRelease::AddResolvedVehicle(std::string_view vehicle, const ResolvedEvents& events) {
  if (counters_.empty()) return;
  // Each event's fields resolved once for all counters, and one hash per
  // vehicle for those with the first one's selection key: all of a plan's
  // (counters gathered elsewhere may each have their own).
  const uint64_t key = counters_.front().selection_key();
  const uint64_t hash = counters_.front().VehicleHash(vehicle);
  for (BoundedCounter& c : counters_)
    c.AddResolvedVehicle(c.selection_key() == key ? hash : c.VehicleHash(vehicle), events);
}

std::optional<DpReleaseResult> DpRelease::Publish(Epsilon release_epsilon, RandomSource& rng) const {
  if (release_epsilon.IsZero() || counters_.empty()) return std::nullopt;
  const Rational share = release_epsilon.Share(plan_.Measurements());
  std::vector<DiscreteLaplace> noise;
  for (const BoundedCounter& c : counters_) {
    auto n = DiscreteLaplace::ForQuery(c.query().Sensitivity(), share);
    if (!n) return std::nullopt;
    noise.push_back(*n);
  }

  DpReleaseResult result;
  for (const BoundedCounter& c : counters_) {
    result.contributions_cut += c.stats().cut();
    result.out_of_domain += c.stats().out_of_domain;
  }
  auto base = [&](const std::string& name, const BoundedCounter& c, size_t cell) {
    DpCountRecord r;
    r.release = release_id_;
    r.query = name;
    r.cell = c.CellAt(cell);
    r.mechanism = DiscreteLaplace::kMechanismName;
    return r;
  };

  size_t k = 0;
  for (; k < plan_.counts.size(); ++k) {
    const BoundedCounter& c = counters_[k];
    for (size_t cell = 0; cell < c.num_cells(); ++cell) {
      DpCountRecord r = base(c.query().name, c, cell);
      r.noisy = static_cast<int64_t>(c.CountAt(cell)) + noise[k].Sample(rng);
      const PostCount v = ClampCount(r.noisy);
      r.count = v.value;
      r.postprocessed = StepNames(v.steps);
      r.epsilon = share.ToDouble();
      r.sensitivity = c.query().Sensitivity();
      result.records.push_back(std::move(r));
    }
  }
  for (const RatioQuery& q : plan_.ratios) {
    const BoundedCounter& num = counters_[k];
    const BoundedCounter& den = counters_[k + 1];
    for (size_t cell = 0; cell < num.num_cells(); ++cell) {
      DpCountRecord r = base(q.name, num, cell);
      r.kind = DpCountRecord::Kind::kRatio;
      const int64_t n = static_cast<int64_t>(num.CountAt(cell)) + noise[k].Sample(rng);
      const int64_t d = static_cast<int64_t>(den.CountAt(cell)) + noise[k + 1].Sample(rng);
      const PostRatio v = RatioOf(n, d);
      r.ratio = v.value;
      r.numerator = ClampCount(n).value;
      r.denominator = ClampCount(d).value;
      r.noisy_numerator = n;
      r.noisy_denominator = d;
      r.postprocessed = StepNames(v.steps);
      r.epsilon = 2 * share.ToDouble();
      r.sensitivity = std::max(num.query().Sensitivity(), den.query().Sensitivity());
      result.records.push_back(std::move(r));
    }
    k += 2;
  }
  return result;
}

}  // namespace vanon::dp
