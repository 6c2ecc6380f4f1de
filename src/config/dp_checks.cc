// DP checks that need the whole config: everything DpPublisher
// would refuse at `run` is refused here first, with file, line and key, so
// `validate-config` and `run` agree (tests/service/config_refusals_test.cc).
// Left to DpPublisher: dp.aggregation.partition against the input topic's
// partition count (known only from the broker).

#include <cmath>
#include <fstream>
#include <set>

#include "parse.h"
#include "vanon/dp/epsilon.h"

namespace vanon::config::internal {

namespace {

// As dp::ValidateQuery (src/dp/count_query.cc).
constexpr uint64_t kMaxCellsPerQuery = 100'000;

const QuasiIdentifier* FindQi(const Config& c, const std::string& dimension) {
  if (dimension.rfind("qi:", 0) != 0) return nullptr;
  for (const QuasiIdentifier& qi : c.quasi_identifiers) {
    if (qi.name == dimension.substr(3)) return &qi;
  }
  return nullptr;
}

// Fixed bins of a numeric QI, as SchemaFromConfig codes them.
uint64_t NumericBins(const QuasiIdentifier& qi) {
  const double scale = std::pow(10.0, qi.precision);
  const double lo = std::floor(qi.range_min * scale), hi = std::ceil(qi.range_max * scale);
  const double width = std::max(1.0, std::round(qi.bin_width * scale));
  return static_cast<uint64_t>(std::floor((hi - lo) / width)) + 1;
}

// Leaves of a categorical QI: the non-blank rows of its ARX CSV hierarchy,
// one leaf each (the engine's loader refuses a leaf listed twice). 1 when
// the file cannot be read: the QI check reports that.
uint64_t HierarchyLeaves(const QuasiIdentifier& qi) {
  std::ifstream in(qi.hierarchy);
  if (!in) return 1;
  uint64_t leaves = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) ++leaves;
  }
  return std::max<uint64_t>(leaves, 1);
}

void CheckEpsilon(double value, const char* key, Diagnostics* diag) {
  const std::optional<dp::Epsilon> e = dp::Epsilon::FromDouble(value);
  if (!e || e->IsZero()) diag->Error(key, "not a positive decimal with at most nine fractional digits");
}

// Cells of one query: over 100,000 is refused (noise on that many cells is
// useless and the state too large).
void CheckQueryCells(const Config& c, const DpQuery& q, const std::string& path, Diagnostics* diag) {
  const DpConfig& dp = c.dp;
  const int64_t span_s = dp.window_seconds > 0 ? dp.window_seconds : c.privacy.epoch.length_seconds;
  double cells = 1;
  for (size_t j = 0; j < q.dimensions.size(); ++j) {
    const std::string& d = q.dimensions[j];
    if (d == "event") {
      cells *= static_cast<double>(dp.event_names.size());
    } else if (d == "sensitive") {
      cells *= static_cast<double>(dp.sensitive_values.size() + 1);  // and "other"
    } else if (d == "time_bucket" && dp.time_bucket_seconds > 0) {
      cells *= std::ceil(static_cast<double>(span_s) / static_cast<double>(dp.time_bucket_seconds));
    } else if (const QuasiIdentifier* qi = FindQi(c, d); qi && qi->type == QiType::kNumeric) {
      if (qi->split == NumericSplit::kOnDemand || qi->bin_width <= 0) {
        diag->Error(ItemPath(path + ".dimensions", j),
                    d + " is split on demand; DP cells need fixed bins (set its bin_width)");
        return;
      }
      cells *= static_cast<double>(NumericBins(*qi));
    } else if (qi && qi->type == QiType::kCategorical) {
      cells *= static_cast<double>(HierarchyLeaves(*qi));
    }
  }
  if (cells > static_cast<double>(kMaxCellsPerQuery)) {
    diag->Error(path + ".dimensions", "more than " + std::to_string(kMaxCellsPerQuery) + " cells (" +
                                          std::to_string(static_cast<uint64_t>(cells)) + ")");
  }
}

}  // namespace

void CheckDpPlan(const Config& c, Diagnostics* diag) {
  const DpConfig& dp = c.dp;
  if (!dp.enabled) return;
  CheckEpsilon(dp.epsilon_per_release, "dp.epsilon_per_release", diag);
  CheckEpsilon(dp.budget_epsilon, "dp.budget.epsilon", diag);
  std::set<std::string> names;
  for (const std::string& n : dp.event_names) {
    if (!names.insert(n).second) diag->Error("dp.event_names", "lists \"" + n + "\" twice");
  }
  for (size_t i = 0; i < dp.queries.size(); ++i) {
    const DpQuery& q = dp.queries[i];
    const std::string path = ItemPath("dp.queries", i);
    CheckQueryCells(c, q, path, diag);
    for (const auto& [key, value] : q.filter) {
      const QuasiIdentifier* qi = FindQi(c, key);
      if (qi && qi->type == QiType::kNumeric && (qi->split == NumericSplit::kOnDemand || qi->bin_width <= 0)) {
        diag->Error(path + ".filter." + key, key + " is split on demand; DP cells need fixed bins (set its bin_width)");
      }
    }
  }
}

}  // namespace vanon::config::internal
