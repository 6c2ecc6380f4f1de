// Counts per release (dp.window_seconds 0): every release of a partition
// charges its ledger epsilon_per_release (id: the epoch) and publishes every
// cell of every query with noise.
//
// Running totals: every count query without a time bucket also publishes a
// running total per cell, from one TreeCounter per cell kept in meta
// dp_tree/<query>. All counters start together, with one ledger charge of
// per_release epsilon (split over the queries), and run for 2^levels
// releases that publish DP counts, or until that charge leaves the rolling
// window, whichever comes first: the horizon fits in a period only if
// releases follow each other without gaps (a paused budget, an idle
// partition, a service stopped for days break that), and a counter must
// never publish on a charge the ledger no longer counts. The charge's ledger
// id is kept in meta kDpTreeChargeMeta.

#include <charconv>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "service/dp/dp_mode.h"
#include "service/store/record_names.h"
#include "service/store/share_state.h"
#include "vanon/dp/count_record.h"
#include "vanon/dp/postprocess.h"
#include "vanon/dp/tree_counter.h"

namespace vanon::service {

namespace {

using Result = DpPublisher::Result;

constexpr int kMaxTreeLevels = 20;

std::string WithPartition(std::string json, int32_t partition) {
  json.pop_back();  // '}'
  json += ",\"partition\":" + std::to_string(partition) + "}";
  return json;
}

// A count query that also publishes running totals.
struct TreeQuery {
  size_t count_index = 0;  // in plan.counts
  std::string meta_name;
  uint64_t stream_sensitivity = 0;
  dp::Rational epsilon;
  dp::Rational scale;  // of the counters' block noise, to spot a changed configuration
};

class ReleaseCounts final : public DpMode {
 public:
  explicit ReleaseCounts(DpCore* core);

  Result Compute(int32_t partition, int64_t epoch, int64_t epoch_start_ms, int64_t epoch_end_ms, EventsByVehicle events,
                 dp::RandomSource& random) override;

 private:
  // The partition's counters as stored, one vector per TreeQuery; nullopt
  // when they must start over (none yet, used up, of another configuration,
  // or their charge left the ledger's window).
  std::optional<std::vector<std::vector<dp::TreeCounter>>> LoadCounters(int32_t partition, int64_t epoch_start_ms,
                                                                        const dp::DpRelease& release);
  // Continues the partition's counters by one release. Call with core_.mu held.
  void RunningTotals(int32_t partition, int64_t epoch, int64_t epoch_start_ms, const dp::DpRelease& release,
                     dp::RandomSource& random, Result* result);

  DpCore& core_;
  std::vector<TreeQuery> trees_;
  int tree_levels_ = 0;
};

ReleaseCounts::ReleaseCounts(DpCore* core) : core_(*core) {
  const DpSettings& s = core_.settings;
  // One counter horizon fits in a budget period, so the counter's one charge
  // stays in the window for as long as it publishes.
  while (tree_levels_ < kMaxTreeLevels && (int64_t{2} << tree_levels_) * s.epoch_ms <= s.policy.period_ms) {
    ++tree_levels_;
  }
  if (tree_levels_ < 1) return;
  std::vector<size_t> eligible;
  for (size_t k = 0; k < s.plan.counts.size(); ++k) {
    if (!HasTimeBucket(s.plan.counts[k])) eligible.push_back(k);
  }
  if (eligible.empty()) return;
  const dp::Rational share = s.policy.per_release.Share(eligible.size());
  for (size_t k : eligible) {
    // A vehicle can add up to the per-release sensitivity in every release
    // of the horizon.
    const uint64_t stream = (uint64_t{1} << tree_levels_) * s.plan.counts[k].Sensitivity();
    auto probe_counter = dp::TreeCounter::Create(tree_levels_, stream, share);
    if (!probe_counter) {
      throw std::invalid_argument("dp: running totals of " + s.plan.counts[k].name + " overflow the noise scale");
    }
    trees_.push_back({k, "dp_tree/" + s.plan.counts[k].name, stream, share, probe_counter->noise().scale()});
  }
}

Result ReleaseCounts::Compute(int32_t partition, int64_t epoch, int64_t epoch_start_ms, int64_t epoch_end_ms,
                              EventsByVehicle events, dp::RandomSource& random) {
  const DpSettings& s = core_.settings;
  Result result;
  result.partition = partition;
  std::unique_lock<std::mutex> lock(core_.mu);
  const uint64_t release_id = static_cast<uint64_t>(epoch);
  const dp::SpendResult spend = core_.ledgers.Get(partition).TrySpend(release_id, epoch_start_ms, s.policy.per_release);
  result.status = core_.ledgers.Get(partition).Status(epoch_start_ms);
  lock.unlock();
  if (spend.outcome == dp::SpendOutcome::kExhausted) {
    result.budget_exhausted = true;
    result.exhausted_message = spend.message;
    return result;
  }
  if (!spend.publish()) throw std::runtime_error(spend.message);

  dp::DpRelease release(s.plan, release_id, epoch_start_ms, epoch_end_ms);
  core_.vehicles.ForEach(events, release.values(), [&](std::string_view vehicle, const dp::ResolvedEvents& list) {
    release.AddResolvedVehicle(vehicle, list);
  });
  std::optional<dp::DpReleaseResult> published = release.Publish(s.policy.per_release, random);
  if (!published) throw std::runtime_error("dp: noise scale overflow in release " + std::to_string(epoch));
  for (const dp::DpCountRecord& r : published->records)
    result.records.push_back(WithPartition(dp::ToJson(r), partition));
  result.contributions_cut = published->contributions_cut;

  lock.lock();
  RunningTotals(partition, epoch, epoch_start_ms, release, random, &result);
  result.status = core_.ledgers.Get(partition).Status(epoch_start_ms);
  result.cells_published = result.records.size();
  return result;
}

std::optional<std::vector<std::vector<dp::TreeCounter>>> ReleaseCounts::LoadCounters(int32_t partition,
                                                                                     int64_t epoch_start_ms,
                                                                                     const dp::DpRelease& release) {
  // No charge on record (a state written before it was kept) counts as
  // expired: the counters start over with a charge of their own.
  std::optional<std::string> charge = core_.state->GetMeta(partition, kDpTreeChargeMeta);
  if (!charge) return std::nullopt;
  uint64_t id = 0;
  auto [end, ec] = std::from_chars(charge->data(), charge->data() + charge->size(), id);
  if (ec != std::errc() || end != charge->data() + charge->size() ||
      !core_.ledgers.Get(partition).Charged(id, epoch_start_ms)) {
    return std::nullopt;
  }
  std::vector<std::vector<dp::TreeCounter>> counters(trees_.size());
  for (size_t q = 0; q < trees_.size(); ++q) {
    std::optional<std::string> stored = core_.state->GetMeta(partition, trees_[q].meta_name);
    if (!stored) return std::nullopt;
    size_t at = 0;
    while (at < stored->size()) {
      size_t line_end = stored->find('\n', at);
      if (line_end == std::string::npos) line_end = stored->size();
      auto c = dp::TreeCounter::Deserialize(std::string_view(*stored).substr(at, line_end - at));
      // A counter of another configuration, or used up, starts over.
      if (!c || c->releases() >= c->horizon() || c->horizon() != (uint64_t{1} << tree_levels_) ||
          c->noise().scale() != trees_[q].scale) {
        return std::nullopt;
      }
      counters[q].push_back(std::move(*c));
      at = line_end + 1;
    }
    if (counters[q].size() != release.counters()[trees_[q].count_index].num_cells()) return std::nullopt;
  }
  return counters;
}

void ReleaseCounts::RunningTotals(int32_t partition, int64_t epoch, int64_t epoch_start_ms,
                                  const dp::DpRelease& release, dp::RandomSource& random, Result* result) {
  if (trees_.empty()) return;
  std::optional<std::vector<std::vector<dp::TreeCounter>>> counters = LoadCounters(partition, epoch_start_ms, release);
  std::string charge_record;  // set when the counters start over
  if (!counters) {
    const uint64_t charge = kTreeLedgerBit | static_cast<uint64_t>(epoch);
    const dp::SpendResult s =
        core_.ledgers.Get(partition).TrySpend(charge, epoch_start_ms, core_.settings.policy.per_release);
    if (s.outcome == dp::SpendOutcome::kExhausted) return;  // totals wait; the counts went out
    if (!s.publish()) throw std::runtime_error(s.message);
    charge_record = std::to_string(charge);
    counters.emplace(trees_.size());
    for (size_t q = 0; q < trees_.size(); ++q) {
      const size_t cells = release.counters()[trees_[q].count_index].num_cells();
      (*counters)[q].assign(cells,
                            *dp::TreeCounter::Create(tree_levels_, trees_[q].stream_sensitivity, trees_[q].epsilon));
    }
  }
  for (size_t q = 0; q < trees_.size(); ++q) {
    const dp::BoundedCounter& truth = release.counters()[trees_[q].count_index];
    std::string state;
    for (size_t cell = 0; cell < (*counters)[q].size(); ++cell) {
      dp::TreeCounter& counter = (*counters)[q][cell];
      std::optional<int64_t> total = counter.Add(static_cast<int64_t>(truth.CountAt(cell)), random);
      if (!total) throw std::logic_error("dp: tree counter past its horizon");
      dp::DpCountRecord r;
      r.release = static_cast<uint64_t>(epoch);
      r.query = truth.query().name;
      r.cell = truth.CellAt(cell);
      r.noisy = *total;
      const dp::PostCount v = dp::ClampCount(*total);
      r.count = v.value;
      r.postprocessed = dp::StepNames(v.steps);
      r.epsilon = trees_[q].epsilon.ToDouble();
      r.sensitivity = trees_[q].stream_sensitivity;
      r.mechanism = dp::TreeCounter::kMechanismName;
      result->records.push_back(WithPartition(dp::ToJson(r), partition));
      if (cell > 0) state += '\n';
      state += counter.Serialize();
    }
    result->meta.emplace_back(trees_[q].meta_name, std::move(state));
  }
  if (!charge_record.empty()) result->meta.emplace_back(kDpTreeChargeMeta, std::move(charge_record));
}

}  // namespace

std::unique_ptr<DpMode> NewReleaseCounts(DpCore* core) { return std::make_unique<ReleaseCounts>(core); }

}  // namespace vanon::service
