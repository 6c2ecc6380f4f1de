#include "service/dp/dp_settings.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>
#include <utility>

#include "vanon/dp/ledger_store.h"
#include "vanon/ingest/keyed_hasher.h"
#include "vanon/release/schema_from_config.h"

namespace vanon::service {

namespace {

constexpr int64_t kDayMs = 86'400'000;

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

bool CountsSensitive(const dp::DpPlan& plan) {
  auto has_sensitive = [](const dp::CountQuery& q) {
    return std::any_of(q.dimensions.begin(), q.dimensions.end(),
                       [](const dp::Dimension& d) { return d.kind == dp::Dimension::Kind::kSensitive; });
  };
  return std::any_of(plan.counts.begin(), plan.counts.end(), has_sensitive) ||
         std::any_of(plan.ratios.begin(), plan.ratios.end(), [&](const dp::RatioQuery& r) {
           return has_sensitive(r.numerator) || has_sensitive(r.denominator);
         });
}

}  // namespace

bool HasTimeBucket(const dp::CountQuery& q) {
  return std::any_of(q.dimensions.begin(), q.dimensions.end(),
                     [](const dp::Dimension& d) { return d.kind == dp::Dimension::Kind::kTimeBucket; });
}

DpSettings DpSettingsFromConfig(const config::Config& config, std::string_view hmac_key) {
  const config::DpConfig& dpc = config.dp;
  DpSettings s;
  s.policy.per_release = EpsilonOf(dpc.epsilon_per_release, "dp.epsilon_per_release");
  s.policy.period_total = EpsilonOf(dpc.budget_epsilon, "dp.budget.epsilon");
  s.policy.period_ms = static_cast<int64_t>(dpc.budget_period_days) * kDayMs;
  s.epoch_ms = config.privacy.epoch.length_seconds * 1000;
  s.window_ms = dpc.window_seconds * 1000;
  s.aggregation = dpc.aggregation;
  if (s.aggregating() && s.window_ms == 0) throw std::invalid_argument("dp.aggregation.topic: needs dp.window_seconds");

  s.schema = std::make_unique<engine::Schema>(release::SchemaFromConfig(config.quasi_identifiers, config.sensitive));
  std::map<std::string, QiDomain> qi_domains;
  s.plan = PlanFromConfig(config, *s.schema, &qi_domains);
  // Keys the choice of kept cells; derived from the service secret so that it
  // is stable over restarts and not guessable from outside.
  {
    ingest::KeyedHasher hasher(hmac_key);
    const ingest::HmacToken t = hasher.Hash("vanon.dp.selection_key");
    std::memcpy(&s.plan.selection_key, t.data(), sizeof s.plan.selection_key);
  }
  if (auto err = dp::ValidatePlan(s.plan, s.window_ms > 0 ? s.window_ms : s.epoch_ms)) {
    throw std::invalid_argument("dp: " + *err);
  }
  std::string error;
  dp::MemoryLedgerStore probe;
  if (!dp::BudgetLedger::Open(s.policy, &probe, &error)) throw std::invalid_argument("dp: " + error);

  for (auto& [name, domain] : qi_domains) {
    s.qis.push_back({name, domain.attr, config.quasi_identifiers[domain.attr]});
  }
  s.counts_sensitive = CountsSensitive(s.plan);
  return s;
}

}  // namespace vanon::service
