#include "pipeline.h"

#include <algorithm>
#include <memory>

#include "test_schema.h"

namespace vanon::utility {

// The engine tests' schema: the same QIs, so the benchmark's NCP compares
// with theirs.
engine::Schema UtilitySchema() { return testing::TestSchema(); }

void MeasureBuckets(const std::map<engine::Signature, uint64_t>& buckets, ReleaseRow* row) {
  uint64_t vehicles = 0, slots = 0, shared = 0;
  for (const auto& [sig, n] : buckets) {
    vehicles += n;
    slots += sig.size();
    if (n > sig.size()) shared += n;
  }
  row->vehicles_per_slot = slots ? static_cast<double>(vehicles) / static_cast<double>(slots) : 0;
  row->shared = vehicles ? static_cast<double>(shared) / static_cast<double>(vehicles) : 0;
}

Pipeline::Pipeline(std::string name, bool epoch_mode, engine::WindowParams window, engine::ReleaseParams params,
                   uint32_t vehicles)
    : name_(std::move(name)),
      epoch_mode_(epoch_mode),
      window_(window),
      windows_(vehicles),
      schema_(UtilitySchema()),
      checker_(schema_) {
  in_.params = params;
}

ReleaseRow Pipeline::Release(uint64_t release, const std::vector<EpochActivity>& epoch, const DriftingFleet& fleet) {
  in_.release_id = release;
  in_.tuples.clear();
  in_.histories.clear();
  for (const EpochActivity& a : epoch) {
    engine::Tuple t;
    t.vehicle = fleet.key(a.vehicle);
    index_.emplace(t.vehicle, a.vehicle);
    t.qi = fleet.qi(a.vehicle);
    uint32_t events = 0;
    for (const engine::ValueCount& c : a.tracks) events += c.count;
    t.events = std::max<uint32_t>(events, 1);
    std::optional<engine::SensitiveId> value;
    if (epoch_mode_) {
      // The service's `mode`: tracks are in order of first occurrence, and
      // ties go to the earliest.
      const engine::ValueCount* best = nullptr;
      for (const engine::ValueCount& c : a.tracks) {
        if (best == nullptr || c.count > best->count) best = &c;
      }
      value = best ? std::optional<engine::SensitiveId>(best->value) : window_.missing_value;
    } else {
      value = windows_[a.vehicle].Advance(release, a.tracks, window_);
      if (!windows_[a.vehicle].history().empty() && !in_.known_signatures.count(t.vehicle)) {
        // Only vehicles without a signature need it (as the service would
        // read it from state for them only).
        in_.histories[t.vehicle] = windows_[a.vehicle].history();
      }
    }
    if (!value) continue;  // ineligible without a missing value; none here
    t.sensitive = *value;
    in_.tuples.push_back(std::move(t));
  }
  for (const engine::WaitingTuple& w : in_.waiting) {
    // Waiting vehicles learn too, whether or not active in this epoch.
    const std::vector<engine::ValueCount>& h = windows_[index_.at(w.tuple.vehicle)].history();
    if (!h.empty()) in_.histories[w.tuple.vehicle] = h;
  }
  const engine::ReleaseOutput out = ComputeRelease(schema_, in_);
  violations_ = checker_.Check(in_, out);

  ReleaseRow row;
  const engine::ReleaseMetrics& mx = out.metrics;
  row.suppression = mx.suppression_ratio;
  row.conflict = mx.suppression_ratio_by_reason[0];
  row.delay = mx.suppression_ratio_by_reason[1];
  row.ineligible = mx.suppression_ratio_by_reason[2];
  row.counterfeit_ratio = mx.counterfeit_ratio;
  row.ncp = mx.ncp;
  row.min_real = mx.min_group_size;
  row.groups = mx.groups;
  row.published = mx.published;
  row.tuples = mx.tuples;
  row.counterfeits = mx.counterfeits;
  row.violations = violations_.size();

  engine::ReleaseInput next;
  next.params = in_.params;
  next.known_signatures = std::move(in_.known_signatures);
  for (const auto& [vehicle, sig] : out.new_signatures) next.known_signatures[vehicle] = sig;
  if (const uint64_t horizon = in_.params.signature_horizon; horizon > 0) {
    for (const engine::Group& g : out.groups) {
      for (engine::TupleRef ref : g.members) last_published_[ResolveTuple(in_, ref).vehicle] = release;
    }
    for (auto it = next.known_signatures.begin(); it != next.known_signatures.end();) {
      if (release + 1 > last_published_[it->first] + horizon) {
        last_published_.erase(it->first);
        it = next.known_signatures.erase(it);
      } else {
        ++it;
      }
    }
  }
  std::map<engine::Signature, uint64_t> buckets;
  for (const auto& [vehicle, sig] : next.known_signatures) ++buckets[sig];
  MeasureBuckets(buckets, &row);
  for (const engine::StillWaiting& w : out.waiting) {
    next.waiting.push_back(engine::WaitingTuple{ResolveTuple(in_, w.ref), w.first_release});
  }
  in_ = std::move(next);
  return row;
}

std::vector<std::unique_ptr<UtilityPipeline>> MakePipelines(uint32_t m, const PipelineOptions& options, uint32_t values,
                                                            uint32_t vehicles) {
  engine::ReleaseParams current;
  current.m = m;
  current.max_delay = 2;  // config/vanon.yaml privacy.max_delay_epochs
  current.seed = 7;
  engine::WindowParams today;
  today.missing_value = values;  // "Radio": an id after the artists
  engine::WindowParams windowed = today;
  windowed.epochs = options.window;
  windowed.missing = engine::MissingPolicy::kCarry;
  windowed.carry_epochs = 4 * options.window;
  engine::ReleaseParams history = current;
  history.history_slots = options.history_slots;
  history.history_min_events = options.learn_events;
  history.history_min_share = options.min_share;
  history.max_delay = std::max(current.max_delay, options.learn_delay);
  std::vector<std::unique_ptr<UtilityPipeline>> out;
  out.push_back(std::make_unique<Pipeline>("engine-current", true, today, current, vehicles));
  out.push_back(std::make_unique<Pipeline>("engine-window", false, windowed, current, vehicles));
  out.push_back(std::make_unique<Pipeline>("engine-history", false, windowed, history, vehicles));
  if (options.shared > 0) {
    engine::ReleaseParams shared = history;
    shared.history_slots = 0;
    shared.shared_signatures = options.shared;
    shared.shared_signature_size = options.shared_size;
    out.push_back(std::make_unique<Pipeline>("engine-shared", false, windowed, shared, vehicles));
    // What the service runs with privacy.shared_signatures alone: today's
    // aggregator, no histories, no learning.
    engine::ReleaseParams service = current;
    service.shared_signatures = options.shared;
    service.shared_signature_size = options.shared_size;
    out.push_back(std::make_unique<Pipeline>("engine-shared0", true, today, service, vehicles));
  }
  if (options.horizon > 0) {
    engine::ReleaseParams renewed = history;
    renewed.signature_horizon = options.horizon;
    out.push_back(std::make_unique<Pipeline>("engine-horizon", false, windowed, renewed, vehicles));
  }
  return out;
}

}  // namespace vanon::utility
