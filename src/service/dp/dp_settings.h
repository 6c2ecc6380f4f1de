// What a configuration fixes for DP publication, checked once at start and
// shared by every mode: the plan of queries, the budget policy, the epoch and
// window lengths, and where the queries' QIs are on a buffered event.
#ifndef VANON_SRC_SERVICE_DP_DP_SETTINGS_H_
#define VANON_SRC_SERVICE_DP_DP_SETTINGS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vanon/config.h"
#include "vanon/dp/budget_ledger.h"
#include "vanon/dp/dp_release.h"
#include "vanon/engine/schema.h"

namespace vanon::service {

// A QI some query uses, as a dimension or a filter.
struct QiLookup {
  std::string name;
  size_t attr = 0;                 // index in config.quasi_identifiers and BufferedEvent::qi_values
  config::QuasiIdentifier config;  // its range and precision, for numeric values
};

struct DpSettings {
  dp::DpPlan plan;
  dp::BudgetPolicy policy;
  int64_t epoch_ms = 0;
  int64_t window_ms = 0;                      // 0: counts per release
  config::DpConfig::Aggregation aggregation;  // topic empty: no global counts
  std::unique_ptr<engine::Schema> schema;     // generalizes the QIs' raw values into cells
  std::vector<QiLookup> qis;
  bool counts_sensitive = false;  // some query has the sensitive dimension

  bool aggregating() const { return !aggregation.topic.empty(); }
};

// Throws std::invalid_argument when the queries cannot run: a dimension
// without a fixed domain, a numeric QI split on demand, an epsilon with more
// than nine decimals, global counts without windows. `hmac_key` keys the
// choice of kept cells (DpPlan::selection_key).
DpSettings DpSettingsFromConfig(const config::Config& config, std::string_view hmac_key);

// A bucket of one epoch or window has no meaning summed over time: such
// queries get no running totals.
bool HasTimeBucket(const dp::CountQuery& q);

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_DP_DP_SETTINGS_H_
