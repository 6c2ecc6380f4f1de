// How long the DP budget lasts with a given config.
//
// The service charges dp.epsilon_per_release to a partition's ledger for
// every release epoch and once more whenever a running-total tree counter
// starts (DpPublisher). The ledger is a rolling window of
// dp.budget.period_days, so the budget lasts for good when one period's
// charges fit in it, and otherwise publication pauses until old charges age
// out. CheckConsistency refuses a config whose charges do not fit; `vanon
// validate-config` prints the plan of a valid one.

#ifndef VANON_CONFIG_DP_BUDGET_H_
#define VANON_CONFIG_DP_BUDGET_H_

#include <cstdint>
#include <string>

#include "vanon/config.h"

namespace vanon::config {

struct DpBudgetPlan {
  int64_t releases_per_period = 0;     // charged releases (epochs, or DP windows) in one rolling period
  int64_t tree_starts_per_period = 0;  // running-total counter starts in one period (upper bound)
  double epsilon_per_period = 0;       // what one period's charges add up to
  bool lasts_period = false;           // epsilon_per_period <= budget
  // From an empty ledger: how many releases publish, and for how long,
  // before the first pause (= the period's releases when it lasts).
  int64_t releases_before_pause = 0;
  int64_t seconds_before_pause = 0;
  // The largest epsilon_per_release (nano-epsilon resolution) that lasts.
  double max_lasting_epsilon_per_release = 0;
};

// Mirrors DpPublisher's charging rule. Call on a config whose dp section
// passed its own range checks (positive epsilons, epoch length, period).
DpBudgetPlan PlanDpBudget(const Config& config);

// One line for people, e.g. "dp budget: 8.64 of 10 epsilon per 30 days
// (43200 releases + 2 running-total starts, 0.0002 each): lasts the period".
std::string DescribeDpBudget(const Config& config, const DpBudgetPlan& plan);

// "1h 40m", "2d 3h", "45s".
std::string FormatDuration(int64_t seconds);

}  // namespace vanon::config

#endif  // VANON_CONFIG_DP_BUDGET_H_
