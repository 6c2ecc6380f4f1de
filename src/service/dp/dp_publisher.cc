#include "service/dp/dp_publisher.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <charconv>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "service/support/metric_builders.h"
#include "service/store/share_state.h"
#include "service/store/state_ledger_store.h"
#include "vanon/dp/count_record.h"
#include "vanon/dp/postprocess.h"
#include "vanon/dp/tree_counter.h"
#include "vanon/engine/schema.h"
#include "vanon/ingest/keyed_hasher.h"
#include "vanon/ingest/vehicle_order.h"
#include "vanon/release/schema_from_config.h"
#include "service/dp/dp_partial_source.h"

namespace vanon::service {

namespace {

constexpr int64_t kDayMs = 86'400'000;
constexpr int kMaxTreeLevels = 20;

dp::Epsilon EpsilonOf(double value, const char* key) {
  auto e = dp::Epsilon::FromDouble(value);
  if (!e || e->IsZero()) {
    throw std::invalid_argument(std::string(key) + ": not a positive decimal with at most nine fractional digits");
  }
  return *e;
}

// Cell labels of a QI, fixed by the configuration: the hierarchy's leaves
// (categorical) or the fixed bins (numeric). Events carry the raw value;
// Generalize maps it to its label, or "" when it is outside the domain.
struct QiDomain {
  size_t attr = 0;
  std::vector<std::string> labels;
};

QiDomain DomainOf(const engine::Schema& schema, const config::Config& config, const std::string& name) {
  for (size_t a = 0; a < config.quasi_identifiers.size(); ++a) {
    if (config.quasi_identifiers[a].name != name) continue;
    const engine::QiAttribute& attr = schema.attribute(a);
    QiDomain d{a, {}};
    if (attr.IsCategorical()) {
      const engine::CategoricalHierarchy& h = *attr.hierarchy;
      for (int32_t leaf = 0; leaf < h.LeafCount(); ++leaf) d.labels.push_back(h.Name(h.LeafNode(leaf)));
      return d;
    }
    if (attr.numeric.bin_width <= 0) {
      throw std::invalid_argument("dp: qi:" + name + " is split on demand; DP cells need fixed bins (bin_width > 0)");
    }
    for (int64_t lo = attr.numeric.min; lo <= attr.numeric.max; lo += attr.numeric.bin_width) {
      const int32_t v = static_cast<int32_t>(lo);
      d.labels.push_back(schema.Label(a, schema.Generalize(a, v, v)));
    }
    return d;
  }
  throw std::invalid_argument("dp: qi:" + name + " is not a configured quasi-identifier");
}

void GeneralizeInto(const engine::Schema& schema, size_t attr, const config::QuasiIdentifier& qi,
                    const std::string& raw, std::string* out) {
  const engine::QiAttribute& a = schema.attribute(attr);
  if (a.IsCategorical()) {  // a leaf, or outside the domain
    out->assign(raw);
    return;
  }
  // As TupleBuilder does: the exact code, then its fixed bin. A value with
  // no exact code (not a number, out of range, too many decimals) is in no
  // cell rather than in a neighbouring one.
  const std::optional<int32_t> code = release::NumericQiCode(qi, a.numeric, raw);
  if (!code) {
    out->clear();
    return;
  }
  out->assign(schema.Label(attr, schema.Generalize(attr, *code, *code)));
}

std::string WithPartition(std::string json, int32_t partition) {
  json.pop_back();  // '}'
  json += ",\"partition\":" + std::to_string(partition) + "}";
  return json;
}

bool HasTimeBucket(const dp::CountQuery& q) {
  return std::any_of(q.dimensions.begin(), q.dimensions.end(),
                     [](const dp::Dimension& d) { return d.kind == dp::Dimension::Kind::kTimeBucket; });
}

// The DP plan of the config's queries and KPIs; the QIs they use (as a
// dimension or a filter) go into `qi_domains`.
dp::DpPlan PlanFromConfig(const config::Config& config, const engine::Schema& schema,
                          std::map<std::string, QiDomain>* qi_domains) {
  const config::DpConfig& dpc = config.dp;
  dp::DpPlan plan;
  auto to_query = [&](const config::DpQuery& in) {
    dp::CountQuery q;
    q.name = in.name;
    q.unit = in.count == config::DpCount::kEvents  ? dp::CountUnit::kEvents
             : in.count == config::DpCount::kTrips ? dp::CountUnit::kTrips
                                                   : dp::CountUnit::kVehicles;
    q.filter = in.filter;
    q.bounds.max_per_cell = static_cast<uint64_t>(dpc.max_per_cell);
    q.bounds.max_cells = static_cast<uint64_t>(dpc.max_cells);
    for (const std::string& name : in.dimensions) {
      dp::Dimension d;
      if (name == "event") {
        d.kind = dp::Dimension::Kind::kEvent;
        d.domain = dpc.event_names;
      } else if (name == "time_bucket") {
        d.kind = dp::Dimension::Kind::kTimeBucket;
        d.bucket_ms = dpc.time_bucket_seconds * 1000;
      } else if (name == "sensitive") {
        // The listed values, then one cell for every other value.
        d.kind = dp::Dimension::Kind::kSensitive;
        d.domain = dpc.sensitive_values;
        d.domain.push_back(std::string(config::kOtherSensitiveCell));
        d.others_in_last = true;
      } else {
        d.kind = dp::Dimension::Kind::kQi;
        d.qi = name.substr(3);  // "qi:"
        auto it = qi_domains->find(d.qi);
        if (it == qi_domains->end()) it = qi_domains->emplace(d.qi, DomainOf(schema, config, d.qi)).first;
        d.domain = it->second.labels;
      }
      q.dimensions.push_back(std::move(d));
    }
    // A filter on a QI needs the QI on the event even when it is no dimension.
    for (const auto& [key, value] : in.filter) {
      if (key.rfind("qi:", 0) == 0 && !qi_domains->count(key.substr(3))) {
        qi_domains->emplace(key.substr(3), DomainOf(schema, config, key.substr(3)));
      }
    }
    return q;
  };
  std::map<std::string, const config::DpQuery*> by_name;
  for (const config::DpQuery& q : dpc.queries) {
    plan.counts.push_back(to_query(q));
    by_name[q.name] = &q;
  }
  for (const config::DpKpi& k : dpc.kpis) {
    auto num = by_name.find(k.numerator), den = by_name.find(k.denominator);
    if (num == by_name.end() || den == by_name.end()) {
      throw std::invalid_argument("dp: kpi " + k.name + " names an unknown query");
    }
    plan.ratios.push_back({k.name, to_query(*num->second), to_query(*den->second)});
  }
  return plan;
}

double WallSeconds() {
  using namespace std::chrono;
  return static_cast<double>(duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count()) / 1000.0;
}

}  // namespace

struct DpPublisher::PartitionBudget {
  StateLedgerStore store;
  std::unique_ptr<dp::BudgetLedger> ledger;
  PartitionBudget(ShareState* s, int32_t partition) : store(s, partition) {}
};

// A count query that also publishes running totals (one TreeCounter per cell).
struct DpPublisher::TreeQuery {
  size_t count_index = 0;  // in plan_.counts
  std::string meta_name;
  uint64_t stream_sensitivity = 0;
  dp::Rational epsilon;
  dp::Rational scale;  // of the counters' block noise, to spot a changed configuration
};

DpPublisher::DpPublisher(const config::Config& config, std::string_view hmac_key, ShareState* state,
                         prometheus::Registry& registry)
    : DpPublisher(config, hmac_key, nullptr, state, registry) {}

DpPublisher::DpPublisher(const config::Config& config, std::string_view hmac_key, std::unique_ptr<ShareState> owned,
                         ShareState* state, prometheus::Registry& registry)
    : enabled_(config.dp.enabled),
      owned_state_(std::move(owned)),
      store_(state != nullptr ? state : owned_state_.get()),
      budget_gauge_(NewGauge(registry, "vanon_dp_epsilon_budget", "Total epsilon per rolling period.")),
      spent_gauge_(NewGauge(registry, "vanon_dp_epsilon_spent",
                            "Epsilon spent in the current period (the most spent by any partition).")),
      remaining_gauge_(NewGauge(registry, "vanon_dp_epsilon_remaining",
                                "Budget minus spent (the least remaining on any partition).")),
      exhausted_gauge_(
          NewGauge(registry, "vanon_dp_budget_exhausted", "1 while DP publication is paused on some partition.")),
      cells_counter_(NewCounter(registry, "vanon_dp_cells_published_total", "Noisy cells published.")),
      cut_counter_(
          NewCounter(registry, "vanon_dp_contributions_cut_total", "Contributions dropped by per-vehicle bounding.")),
      global_complete_counter_(prometheus::BuildCounter()
                                   .Name("vanon_dp_global_windows_total")
                                   .Help("Global DP windows published (dp.aggregation), by completeness.")
                                   .Register(registry)
                                   .Add({{"complete", "true"}})),
      global_incomplete_counter_(prometheus::BuildCounter()
                                     .Name("vanon_dp_global_windows_total")
                                     .Register(registry)
                                     .Add({{"complete", "false"}})),
      partials_dropped_counter_(NewCounter(registry, "vanon_dp_partials_dropped_total",
                                           "Partials of windows already published, or unreadable: dropped.")),
      global_last_published_(NewGauge(registry, "vanon_dp_global_last_published_timestamp_seconds",
                                      "Wall time (Unix s) this instance last published a global DP window, or started "
                                      "with dp.aggregation; 0 without it.")),
      global_max_wait_(NewGauge(registry, "vanon_dp_global_max_wait_seconds",
                                "Longest a global DP window waits for partials: (max_wait_windows + 1) x "
                                "dp.window_seconds; 0 without dp.aggregation.")) {
  if (!enabled_) return;
  const config::DpConfig& dpc = config.dp;
  policy_.per_release = EpsilonOf(dpc.epsilon_per_release, "dp.epsilon_per_release");
  policy_.period_total = EpsilonOf(dpc.budget_epsilon, "dp.budget.epsilon");
  policy_.period_ms = static_cast<int64_t>(dpc.budget_period_days) * kDayMs;
  epoch_ms_ = config.privacy.epoch.length_seconds * 1000;
  window_ms_ = dpc.window_seconds * 1000;
  aggregation_ = dpc.aggregation;
  if (aggregating() && window_ms_ == 0) throw std::invalid_argument("dp.aggregation.topic: needs dp.window_seconds");
  if (aggregating()) {
    // How long a global window may wait for its partials (its own length,
    // then max_wait_windows more) before it goes out incomplete: the
    // stalled-counts alert compares with it.
    global_max_wait_.Set(static_cast<double>((aggregation_.max_wait_windows + 1) * dpc.window_seconds));
    // Start counting from now, on every instance: an aggregation partition
    // that never runs a release (no input ever reached it) would otherwise
    // leave no series for the stalled alert to fire on.
    global_last_published_.Set(WallSeconds());
  }
  budget_gauge_.Set(policy_.period_total.ToDouble());

  const engine::Schema schema = release::SchemaFromConfig(config.quasi_identifiers, config.sensitive);
  std::map<std::string, QiDomain> qi_domains;
  plan_ = PlanFromConfig(config, schema, &qi_domains);
  // Keys the choice of kept cells; derived from the service secret so that it
  // is stable over restarts and not guessable from outside.
  {
    ingest::KeyedHasher hasher(hmac_key);
    const ingest::HmacToken t = hasher.Hash("vanon.dp.selection_key");
    std::memcpy(&plan_.selection_key, t.data(), sizeof plan_.selection_key);
  }
  if (auto err = dp::ValidatePlan(plan_, window_ms_ > 0 ? window_ms_ : epoch_ms_)) {
    throw std::invalid_argument("dp: " + *err);
  }
  std::string error;
  dp::MemoryLedgerStore probe;
  if (!dp::BudgetLedger::Open(policy_, &probe, &error)) throw std::invalid_argument("dp: " + error);

  for (auto& [name, domain] : qi_domains) {
    qi_attrs_.push_back({name, domain.attr, config.quasi_identifiers[domain.attr]});
  }
  auto has_sensitive = [](const dp::CountQuery& q) {
    return std::any_of(q.dimensions.begin(), q.dimensions.end(),
                       [](const dp::Dimension& d) { return d.kind == dp::Dimension::Kind::kSensitive; });
  };
  counts_sensitive_ = std::any_of(plan_.counts.begin(), plan_.counts.end(), has_sensitive) ||
                      std::any_of(plan_.ratios.begin(), plan_.ratios.end(), [&](const dp::RatioQuery& r) {
                        return has_sensitive(r.numerator) || has_sensitive(r.denominator);
                      });
  schema_ = std::make_unique<engine::Schema>(schema);

  SetUpTreeCounters();
}

// Running totals per release (without DP windows): the tree counters' levels
// and one TreeQuery per eligible count query.
void DpPublisher::SetUpTreeCounters() {
  // Running totals: one counter horizon fits in a budget period (so the
  // counter's one charge stays in the window for as long as it publishes).
  // Queries with a time_bucket dimension are left out: a bucket of one epoch
  // has no meaning summed over epochs.
  // With DP windows, running totals are cumulative sums instead (dp_windows.cc).
  while (window_ms_ == 0 && tree_levels_ < kMaxTreeLevels &&
         (int64_t{2} << tree_levels_) * epoch_ms_ <= policy_.period_ms) {
    ++tree_levels_;
  }
  if (tree_levels_ >= 1) {
    std::vector<size_t> eligible;
    for (size_t k = 0; k < plan_.counts.size(); ++k) {
      if (!HasTimeBucket(plan_.counts[k])) eligible.push_back(k);
    }
    if (!eligible.empty()) {
      const dp::Rational share = policy_.per_release.Share(eligible.size());
      for (size_t k : eligible) {
        // A vehicle can add up to the per-release sensitivity in every
        // release of the horizon.
        const uint64_t stream = (uint64_t{1} << tree_levels_) * plan_.counts[k].Sensitivity();
        auto probe_counter = dp::TreeCounter::Create(tree_levels_, stream, share);
        if (!probe_counter) {
          throw std::invalid_argument("dp: running totals of " + plan_.counts[k].name + " overflow the noise scale");
        }
        trees_.push_back({k, "dp_tree/" + plan_.counts[k].name, stream, share, probe_counter->noise().scale()});
      }
    }
  }
}

DpPublisher::~DpPublisher() = default;

dp::BudgetLedger& DpPublisher::Ledger(int32_t partition) {
  auto it = budgets_.find(partition);
  if (it == budgets_.end()) {
    auto b = std::make_unique<PartitionBudget>(store_, partition);
    std::string error;
    b->ledger = dp::BudgetLedger::Open(policy_, &b->store, &error);
    if (!b->ledger) throw std::runtime_error("dp budget ledger: " + error);
    it = budgets_.emplace(partition, std::move(b)).first;
  }
  return *it->second->ledger;
}

void DpPublisher::Forget(int32_t partition) {
  std::lock_guard<std::mutex> l(compute_mu_);
  budgets_.erase(partition);
}

DpPublisher::Result DpPublisher::Compute(int32_t partition, int64_t epoch, int64_t epoch_start_ms, int64_t epoch_end_ms,
                                         std::span<const ingest::BufferedEvent> events, dp::RandomSource& random) {
  if (!enabled_) {
    Result result;
    result.partition = partition;
    return result;
  }
  Result result = window_ms_ > 0 ? ComputeWindow(partition, epoch, epoch_start_ms, epoch_end_ms, events, random)
                                 : ComputeCounts(partition, epoch, epoch_start_ms, epoch_end_ms, events, random);
  std::lock_guard<std::mutex> l(compute_mu_);
  if (auto it = budgets_.find(partition); it != budgets_.end()) result.ledger_record = it->second->store.Record();
  return result;
}

DpPublisher::Result DpPublisher::ComputeCounts(int32_t partition, int64_t epoch, int64_t epoch_start_ms,
                                               int64_t epoch_end_ms, std::span<const ingest::BufferedEvent> events,
                                               dp::RandomSource& random) {
  Result result;
  result.partition = partition;
  // The ledgers (a map shared by all partitions) and the running totals are
  // touched under the lock; counting the events and drawing the noise need
  // only this share's data and run outside it.
  std::unique_lock<std::mutex> lock(compute_mu_);
  const uint64_t release_id = static_cast<uint64_t>(epoch);
  const dp::SpendResult spend = Ledger(partition).TrySpend(release_id, epoch_start_ms, policy_.per_release);
  result.status = Ledger(partition).Status(epoch_start_ms);
  lock.unlock();
  if (spend.outcome == dp::SpendOutcome::kExhausted) {
    result.budget_exhausted = true;
    result.exhausted_message = spend.message;
    return result;
  }
  if (!spend.publish()) throw std::runtime_error(spend.message);

  dp::DpRelease release(plan_, release_id, epoch_start_ms, epoch_end_ms);
  ForEachVehicle(
      events, [&](std::string_view vehicle, std::span<const dp::DpEvent> list) { release.AddVehicle(vehicle, list); });
  std::optional<dp::DpReleaseResult> published = release.Publish(policy_.per_release, random);
  if (!published) throw std::runtime_error("dp: noise scale overflow in release " + std::to_string(epoch));
  for (const dp::DpCountRecord& r : published->records)
    result.records.push_back(WithPartition(dp::ToJson(r), partition));
  result.contributions_cut = published->contributions_cut;

  lock.lock();
  RunningTotals(partition, epoch, epoch_start_ms, release, random, &result);
  result.status = Ledger(partition).Status(epoch_start_ms);
  result.cells_published = result.records.size();
  return result;
}

// Raw events grouped by vehicle, converted to DpEvents one vehicle at a time.
void DpPublisher::ForEachVehicle(std::span<const ingest::BufferedEvent> events, const VehicleFn& fn) {
  // Raw events, suppressed vehicles included, grouped by vehicle: bounding
  // is per vehicle. Events are sorted by index and converted one vehicle at
  // a time into a scratch vector whose strings keep their capacity, so a
  // release of a million events does not allocate a million DpEvents.
  const std::vector<uint32_t> order = OrderByVehicle(events, /*by_time=*/false);
  std::vector<dp::DpEvent> scratch;
  std::string vehicle;
  for (size_t i = 0; i < order.size();) {
    const ingest::HmacToken& key = events[order[i]].vehicle_key;
    size_t j = i;
    while (j < order.size() && events[order[j]].vehicle_key == key) ++j;
    while (scratch.size() < j - i) {
      dp::DpEvent& d = scratch.emplace_back();
      d.qi.resize(qi_attrs_.size() + (counts_sensitive_ ? 1 : 0));
      for (size_t q = 0; q < qi_attrs_.size(); ++q) d.qi[q].first = qi_attrs_[q].name;  // set once
    }
    for (size_t k = i; k < j; ++k) {
      const ingest::BufferedEvent& e = events[order[k]];
      dp::DpEvent& d = scratch[k - i];
      d.vehicle.assign(reinterpret_cast<const char*>(e.vehicle_key.data()), e.vehicle_key.size());
      d.trip.assign(reinterpret_cast<const char*>(e.trip_key.data()), e.trip_key.size());
      d.name = e.event;
      d.ts_ms = e.ts_ms;
      if (counts_sensitive_) {
        // The last pair: named only when the event carries the value.
        const auto s = static_cast<size_t>(sensitive_extra_);
        const bool has = sensitive_extra_ >= 0 && s < e.extras.size() && e.extras[s].has_value();
        d.qi.back().first = has ? dp::kSensitiveKey : "";
        if (has) d.qi.back().second.assign(*e.extras[s]);
      }
      for (size_t q = 0; q < qi_attrs_.size(); ++q) {
        const QiLookup& l = qi_attrs_[q];
        if (l.attr < e.qi_values.size()) {
          GeneralizeInto(*schema_, l.attr, l.config, e.qi_values[l.attr], &d.qi[q].second);
        } else {
          d.qi[q].second.clear();
        }
      }
    }
    vehicle.assign(reinterpret_cast<const char*>(key.data()), key.size());
    fn(vehicle, std::span<const dp::DpEvent>(scratch.data(), j - i));
    i = j;
  }
}

// Continues this partition's tree counters by one release. All counters
// start together, with one ledger charge of per_release epsilon (split over
// the queries), and run for 2^levels releases that publish DP counts, or
// until that charge leaves the rolling window, whichever comes first: the
// horizon fits in a period only if releases follow each other without gaps
// (a paused budget, an idle partition, a service stopped for days break
// that), and a counter must never publish on a charge the ledger no longer
// counts. The charge's ledger id is kept in kTreeChargeMeta.
void DpPublisher::RunningTotals(int32_t partition, int64_t epoch, int64_t epoch_start_ms, const dp::DpRelease& release,
                                dp::RandomSource& random, Result* result) {
  if (trees_.empty()) return;
  std::vector<std::vector<dp::TreeCounter>> counters(trees_.size());
  // No charge on record (a state written before it was kept) counts as
  // expired: the counters start over with a charge of their own.
  bool fresh = true;
  if (std::optional<std::string> charge = store_->GetMeta(partition, kTreeChargeMeta)) {
    uint64_t id = 0;
    auto [end, ec] = std::from_chars(charge->data(), charge->data() + charge->size(), id);
    fresh =
        ec != std::errc() || end != charge->data() + charge->size() || !Ledger(partition).Charged(id, epoch_start_ms);
  }
  for (size_t q = 0; q < trees_.size() && !fresh; ++q) {
    const size_t cells = release.counters()[trees_[q].count_index].num_cells();
    std::optional<std::string> stored = store_->GetMeta(partition, trees_[q].meta_name);
    if (!stored) {
      fresh = true;
      break;
    }
    size_t at = 0;
    while (at < stored->size()) {
      size_t end = stored->find('\n', at);
      if (end == std::string::npos) end = stored->size();
      auto c = dp::TreeCounter::Deserialize(std::string_view(*stored).substr(at, end - at));
      // A counter of another configuration, or used up, starts over.
      if (!c || c->releases() >= c->horizon() || c->horizon() != (uint64_t{1} << tree_levels_) ||
          c->noise().scale() != trees_[q].scale) {
        fresh = true;
        break;
      }
      counters[q].push_back(std::move(*c));
      at = end + 1;
    }
    if (counters[q].size() != cells) fresh = true;
  }
  std::string charge_record;  // set when the counters start over
  if (fresh) {
    const uint64_t charge = kTreeLedgerBit | static_cast<uint64_t>(epoch);
    const dp::SpendResult s = Ledger(partition).TrySpend(charge, epoch_start_ms, policy_.per_release);
    if (s.outcome == dp::SpendOutcome::kExhausted) return;  // totals wait; the counts went out
    if (!s.publish()) throw std::runtime_error(s.message);
    charge_record = std::to_string(charge);
    for (size_t q = 0; q < trees_.size(); ++q) {
      const size_t cells = release.counters()[trees_[q].count_index].num_cells();
      counters[q].assign(cells,
                         *dp::TreeCounter::Create(tree_levels_, trees_[q].stream_sensitivity, trees_[q].epsilon));
    }
  }
  for (size_t q = 0; q < trees_.size(); ++q) {
    const dp::BoundedCounter& truth = release.counters()[trees_[q].count_index];
    std::string state;
    for (size_t cell = 0; cell < counters[q].size(); ++cell) {
      std::optional<int64_t> total = counters[q][cell].Add(static_cast<int64_t>(truth.CountAt(cell)), random);
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
      state += counters[q][cell].Serialize();
    }
    result->meta.emplace_back(trees_[q].meta_name, std::move(state));
  }
  if (!charge_record.empty()) result->meta.emplace_back(kTreeChargeMeta, std::move(charge_record));
}

void DpPublisher::Apply(const Result& r, ShareDelta* d) const {
  for (const auto& [name, value] : r.meta) d->Add(ShareDelta::PutMeta{name, value});
  for (const std::string& name : r.meta_deleted) d->Add(ShareDelta::DeleteMeta{name});
}

void DpPublisher::Committed(const Result& r) {
  if (!enabled_) return;
  bool& was = exhausted_[r.partition];
  if (r.budget_exhausted && !was) {
    spdlog::warn("dp: privacy budget exhausted on partition {}, DP counts paused: {}", r.partition,
                 r.exhausted_message);
  } else if (!r.budget_exhausted && was) {
    spdlog::info("dp: privacy budget available again on partition {}, DP counts resumed", r.partition);
  }
  was = r.budget_exhausted;
  statuses_[r.partition] = r.status;
  cells_counter_.Increment(static_cast<double>(r.cells_published));
  cut_counter_.Increment(static_cast<double>(r.contributions_cut));
  global_complete_counter_.Increment(static_cast<double>(r.global_complete));
  global_incomplete_counter_.Increment(static_cast<double>(r.global_incomplete));
  partials_dropped_counter_.Increment(static_cast<double>(r.partials_dropped));
  if (r.aggregated && r.global_complete + r.global_incomplete > 0) global_last_published_.Set(WallSeconds());

  dp::Epsilon spent, remaining = policy_.period_total;
  for (const auto& [p, s] : statuses_) {
    spent = std::max(spent, s.spent);
    remaining = std::min(remaining, s.remaining);
  }
  spent_gauge_.Set(spent.ToDouble());
  remaining_gauge_.Set(remaining.ToDouble());
  exhausted_gauge_.Set(budget_exhausted() ? 1 : 0);
}

bool DpPublisher::budget_exhausted() const {
  return std::any_of(exhausted_.begin(), exhausted_.end(), [](const auto& e) { return e.second; });
}

}  // namespace vanon::service
