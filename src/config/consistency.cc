#include <fmt/format.h>

#include <set>

#include "parse.h"
#include "vanon/config/dp_budget.h"

namespace vanon::config::internal {

namespace {

void CheckSensitive(const Config& c, Diagnostics* diag) {
  if (c.sensitive) {
    if (c.sensitive->aggregator == SensitiveAggregator::kRegistry && c.vehicle.source != VehicleSource::kRegistry) {
      diag->Error("sensitive.aggregator", "registry needs vehicle.source: registry");
    }
    return;
  }
  if (c.privacy.model == PrivacyModel::kMInvariance) {
    diag->ErrorNear("privacy.model", "sensitive", "required when privacy.model is m_invariance");
  } else if (c.privacy.l > 0) {
    diag->ErrorNear("privacy.l", "sensitive", "required when privacy.l > 0");
  } else if (c.privacy.t > 0) {
    diag->ErrorNear("privacy.t", "sensitive", "required when privacy.t > 0");
  }
}

// True when one dotted path is the other or lies inside it: publishing
// either publishes (part of) the other.
bool Overlaps(const std::string& a, const std::string& b) {
  const std::string& shorter = a.size() <= b.size() ? a : b;
  const std::string& longer = a.size() <= b.size() ? b : a;
  return longer.compare(0, shorter.size(), shorter) == 0 &&
         (longer.size() == shorter.size() || longer[shorter.size()] == '.');
}

// The groups protect a vehicle's sensitive value only while no other
// channel carries it: refuse every config under which the value, or the
// field it is derived from, would reach a consumer (docs/privacy-model.md,
// "Why values are not linked to tokens").
void CheckSensitiveNotPublished(const Config& c, Diagnostics* diag) {
  if (!c.sensitive) return;
  const SensitiveConfig& s = *c.sensitive;
  if (s.aggregator == SensitiveAggregator::kRegistry) {
    for (size_t i = 0; i < c.quasi_identifiers.size(); ++i) {
      if (c.quasi_identifiers[i].name == s.registry_column) {
        diag->Error("sensitive.registry_column", "column \"" + s.registry_column + "\" is also quasi_identifiers[" +
                                                     std::to_string(i) + "], which every record publishes");
      }
    }
    return;
  }
  const InputFields& in = c.input.fields;
  for (const std::string* published : {&in.event, &in.timestamp}) {
    if (Overlaps(s.field, *published)) {
      diag->Error("sensitive.field",
                  "\"" + s.field + "\" is published in every anonymized event (input field \"" + *published + "\")");
    }
  }
  if (c.vehicle.source == VehicleSource::kEventFields) {
    for (const auto& [name, path] : c.vehicle.fields) {
      if (Overlaps(path, s.field)) {
        diag->Error("vehicle.fields." + name,
                    "reads the sensitive field \"" + s.field + "\" as a quasi-identifier, which is published");
      }
    }
  }
  const std::string prefix = in.payload + ".";
  if (!Overlaps(s.field, in.payload) || s.field == in.payload) {
    if (s.field == in.payload) {
      diag->Error("sensitive.field", "the whole payload cannot be the sensitive field");
    }
    return;  // outside the payload: only the checks above can publish it
  }
  const std::string inner = s.field.substr(prefix.size());
  bool dropped = false;
  for (size_t i = 0; i < c.payload.fields.size(); ++i) {
    const PayloadField& f = c.payload.fields[i];
    if (!Overlaps(f.path, inner)) continue;
    if (f.transform == PayloadTransform::kDrop) {
      // Dropping the field or a payload member that contains it.
      dropped = dropped || f.path.size() <= inner.size();
      continue;
    }
    diag->Error(
        ItemPath("payload.fields", i) + ".transform",
        "publishes \"" + f.path + "\", which carries the sensitive field \"" + s.field + "\"; use transform: drop");
  }
  if (c.payload.default_action == PayloadDefault::kKeep && !dropped) {
    diag->Error("payload.default", "keep would publish the sensitive field \"" + s.field + "\"; add {path: " + inner +
                                       ", transform: drop} to payload.fields");
  }
}

void CheckVehicleFields(const Config& c, Diagnostics* diag) {
  if (c.vehicle.source != VehicleSource::kEventFields) return;
  std::set<std::string> qis;
  for (const QuasiIdentifier& qi : c.quasi_identifiers) {
    qis.insert(qi.name);
    if (c.vehicle.fields.count(qi.name) == 0) {
      diag->Error("vehicle.fields", "no event field for quasi-identifier \"" + qi.name + "\"");
    }
  }
  for (const auto& [name, path] : c.vehicle.fields) {
    if (qis.count(name) == 0) {
      diag->Error("vehicle.fields." + name, "not a quasi-identifier");
    }
  }
}

void CheckTopics(const Config& c, Diagnostics* diag) {
  const KafkaTopics& t = c.kafka.topics;
  const std::pair<const char*, const std::string*> topics[] = {{"input", &t.input},           {"dlq", &t.dlq},
                                                               {"anonymized", &t.anonymized}, {"releases", &t.releases},
                                                               {"counts", &t.counts},         {"late", &t.late}};
  // Writing into the input topic would feed the service its own output.
  std::set<std::string> seen;
  for (const auto& [key, name] : topics) {
    if (!seen.insert(*name).second) {
      diag->Error(std::string("kafka.topics.") + key, "topic \"" + *name + "\" is used twice");
    }
  }
}

void CheckDp(const Config& c, Diagnostics* diag) {
  const DpConfig& dp = c.dp;
  const int64_t epoch_s = c.privacy.epoch.length_seconds;
  if (dp.window_seconds > 0 && epoch_s > 0 && dp.window_seconds % epoch_s != 0) {
    diag->Error("dp.window_seconds",
                "must be a multiple of privacy.epoch.length_seconds (" + std::to_string(epoch_s) + ")");
  }
  if (dp.epsilon_per_release > dp.budget_epsilon) {
    diag->Error("dp.epsilon_per_release", "exceeds dp.budget.epsilon");
  } else if (dp.enabled && dp.epsilon_per_release > 0 && dp.budget_epsilon > 0 && c.privacy.epoch.length_seconds > 0 &&
             dp.budget_period_days > 0) {
    // A budget that runs out mid-period pauses DP publication for the rest
    // of it (the shipped config lasted under two hours of 30 days).
    const DpBudgetPlan plan = PlanDpBudget(c);
    if (!plan.lasts_period) {
      diag->Error(
          "dp.epsilon_per_release",
          "the budget lasts " + FormatDuration(plan.seconds_before_pause) + " (" +
              std::to_string(plan.releases_before_pause) + (dp.window_seconds > 0 ? " windows" : " releases") +
              "), less than its " + std::to_string(dp.budget_period_days) + "-day period, which charges " +
              std::to_string(plan.releases_per_period + plan.tree_starts_per_period) + " x " +
              fmt::format("{:.9g}", dp.epsilon_per_release) + " = " + fmt::format("{:.9g}", plan.epsilon_per_period) +
              " of " + fmt::format("{:.9g}", dp.budget_epsilon) + " epsilon; lower it to at most " +
              fmt::format("{:.9g}", plan.max_lasting_epsilon_per_release) + ", raise dp.budget.epsilon or lengthen " +
              (dp.window_seconds > 0 ? "dp.window_seconds"
                                     : "privacy.epoch.length_seconds (or set dp.window_seconds)"));
    }
  }
  std::set<std::string> qis;
  for (const QuasiIdentifier& qi : c.quasi_identifiers) qis.insert(qi.name);
  auto known = [&](const std::string& d) { return d.rfind("qi:", 0) != 0 || qis.count(d.substr(3)) != 0; };
  for (size_t i = 0; i < dp.queries.size(); ++i) {
    const DpQuery& q = dp.queries[i];
    const std::string path = ItemPath("dp.queries", i);
    for (size_t j = 0; j < q.dimensions.size(); ++j) {
      if (!known(q.dimensions[j])) {
        diag->Error(ItemPath(path + ".dimensions", j), "unknown quasi-identifier in \"" + q.dimensions[j] + "\"");
      }
      // Cells must not depend on the data, so the event names are listed.
      if (dp.enabled && q.dimensions[j] == "event" && dp.event_names.empty()) {
        diag->Error(ItemPath(path + ".dimensions", j),
                    "the event dimension needs dp.event_names (its fixed list of cells)");
      }
      if (q.dimensions[j] == "sensitive" && !c.sensitive) {
        diag->Error(ItemPath(path + ".dimensions", j), "the sensitive dimension needs a sensitive section");
      } else if (dp.enabled && q.dimensions[j] == "sensitive" && dp.sensitive_values.empty()) {
        diag->Error(ItemPath(path + ".dimensions", j),
                    "the sensitive dimension needs dp.sensitive_values (its fixed list of cells)");
      }
    }
    for (const auto& [key, value] : q.filter) {
      if (!known(key)) {
        diag->Error(path + ".filter." + key, "unknown quasi-identifier");
      }
    }
  }
  for (size_t i = 0; i < dp.kpis.size(); ++i) {
    const DpKpi& k = dp.kpis[i];
    const std::string path = ItemPath("dp.kpis", i);
    const DpQuery* parts[2] = {nullptr, nullptr};
    const std::string* refs[2] = {&k.numerator, &k.denominator};
    const char* keys[2] = {"numerator", "denominator"};
    for (int p = 0; p < 2; ++p) {
      for (const DpQuery& q : dp.queries) {
        if (q.name == *refs[p]) parts[p] = &q;
      }
      if (parts[p] == nullptr) {
        diag->Error(path + "." + keys[p], "no query named \"" + *refs[p] + "\" in dp.queries");
      }
    }
    // A ratio is taken cell by cell, so both counts need the same cells.
    if (parts[0] && parts[1] &&
        std::set<std::string>(parts[0]->dimensions.begin(), parts[0]->dimensions.end()) !=
            std::set<std::string>(parts[1]->dimensions.begin(), parts[1]->dimensions.end())) {
      diag->Error(path + ".denominator",
                  "query \"" + k.denominator + "\" has other dimensions than \"" + k.numerator + "\"");
    }
  }
}

}  // namespace

void CheckConsistency(const Config& config, Diagnostics* diag) {
  CheckSensitive(config, diag);
  CheckSensitiveNotPublished(config, diag);
  CheckVehicleFields(config, diag);
  CheckTopics(config, diag);
  CheckDp(config, diag);
  CheckDpPlan(config, diag);
}

}  // namespace vanon::config::internal
