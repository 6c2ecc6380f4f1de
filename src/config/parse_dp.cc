#include <set>

#include "parse.h"

namespace vanon::config::internal {

namespace {

void ParseQuery(Section& q, DpQuery* query) {
  q.Enum("count", &query->count,
         {{"events", DpCount::kEvents}, {"vehicles", DpCount::kVehicles}, {"trips", DpCount::kTrips}},
         /*required=*/true);
  // Whether "qi:NAME" names a real quasi-identifier is checked later, in
  // CheckConsistency, when all quasi-identifiers are known.
  if (q.StringList("dimensions", &query->dimensions)) {
    std::set<std::string> seen;
    for (size_t i = 0; i < query->dimensions.size(); ++i) {
      const std::string& d = query->dimensions[i];
      const std::string path = ItemPath(q.PathOf("dimensions"), i);
      if (d != "event" && d != "time_bucket" && d != "sensitive" && d.rfind("qi:", 0) != 0) {
        q.diag()->Error(path, "\"" + d + "\" must be event, time_bucket, sensitive or qi:<quasi-identifier>");
      } else if (!seen.insert(d).second) {
        q.diag()->Error(path, "duplicate dimension \"" + d + "\"");
      }
    }
  }
  if (q.StringMap("filter", &query->filter)) {
    for (const auto& [key, value] : query->filter) {
      if (key != "event" && key.rfind("qi:", 0) != 0) {
        q.diag()->Error(ChildPath(q.PathOf("filter"), key), "filter keys must be event or qi:<quasi-identifier>");
      }
    }
  }
}

}  // namespace

void ParseDp(Section& root, DpConfig* out) {
  Section s(root.diag(), root.Child("dp"), "dp");
  s.Bool("enabled", &out->enabled);
  s.Double("epsilon_per_release", &out->epsilon_per_release, 0, 100,
           /*lo_open=*/true);
  {
    Section b(root.diag(), s.Child("budget"), s.PathOf("budget"));
    b.Double("epsilon", &out->budget_epsilon, 0, 1e6, /*lo_open=*/true);
    b.Int("period_days", &out->budget_period_days, 1, 3650);
  }
  {
    Section c(root.diag(), s.Child("contribution"), s.PathOf("contribution"));
    c.Int("max_per_cell", &out->max_per_cell, 1, 1000000);
    c.Int("max_cells", &out->max_cells, 1, 10000);
  }
  s.StringList("event_names", &out->event_names);
  if (s.StringList("sensitive_values", &out->sensitive_values)) {
    std::set<std::string> seen;
    for (const std::string& v : out->sensitive_values) {
      if (v == kOtherSensitiveCell) {
        s.Error("sensitive_values", "\"other\" is the cell of every value not listed; it cannot be listed");
      } else if (!seen.insert(v).second) {
        s.Error("sensitive_values", "lists \"" + v + "\" twice");
      }
    }
  }
  s.Int("time_bucket_seconds", &out->time_bucket_seconds, 1, 86400);
  s.Int("window_seconds", &out->window_seconds, 0, 31 * 86400);
  {
    Section a(root.diag(), s.Child("aggregation"), s.PathOf("aggregation"));
    a.String("topic", &out->aggregation.topic);
    a.Int("partition", &out->aggregation.partition, 0, 100000);
    a.Int("max_wait_windows", &out->aggregation.max_wait_windows, 0, 1000);
    if (!out->aggregation.topic.empty() && out->window_seconds == 0) {
      a.Error("topic", "global counts need DP windows: set dp.window_seconds");
    }
  }
  std::set<std::string> names;
  std::vector<YAML::Node> queries = s.List("queries");
  for (size_t i = 0; i < queries.size(); ++i) {
    Section q(root.diag(), queries[i], ItemPath(s.PathOf("queries"), i));
    DpQuery query;
    if (q.String("name", &query.name, /*required=*/true) && !names.insert(query.name).second) {
      q.Error("name", "duplicate query or kpi name \"" + query.name + "\"");
    }
    ParseQuery(q, &query);
    out->queries.push_back(std::move(query));
  }
  std::vector<YAML::Node> kpis = s.List("kpis");
  for (size_t i = 0; i < kpis.size(); ++i) {
    Section k(root.diag(), kpis[i], ItemPath(s.PathOf("kpis"), i));
    DpKpi kpi;
    if (k.String("name", &kpi.name, /*required=*/true) && !names.insert(kpi.name).second) {
      k.Error("name", "duplicate query or kpi name \"" + kpi.name + "\"");
    }
    k.String("numerator", &kpi.numerator, /*required=*/true);
    k.String("denominator", &kpi.denominator, /*required=*/true);
    out->kpis.push_back(std::move(kpi));
  }
}

}  // namespace vanon::config::internal
