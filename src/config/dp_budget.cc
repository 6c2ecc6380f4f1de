#include "vanon/config/dp_budget.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace vanon::config {

namespace {

constexpr int64_t kDaySeconds = 86'400;
// DpPublisher's cap on the running-total tree (2^20 releases).
constexpr int kMaxTreeLevels = 20;

int64_t Nanos(double epsilon) { return std::llround(epsilon * 1e9); }

// The tree horizon in releases, or 0 when no running totals are published:
// DpPublisher gives every count query without a time_bucket dimension a
// counter whose 2^levels releases fit in one period.
int64_t TreeHorizon(const Config& c, int64_t epoch_s, int64_t period_s) {
  const bool any = std::any_of(c.dp.queries.begin(), c.dp.queries.end(), [](const DpQuery& q) {
    return std::find(q.dimensions.begin(), q.dimensions.end(), "time_bucket") == q.dimensions.end();
  });
  if (!any) return 0;
  int levels = 0;
  while (levels < kMaxTreeLevels && (int64_t{2} << levels) * epoch_s <= period_s) ++levels;
  return levels >= 1 ? int64_t{1} << levels : 0;
}

// Charges after releases 0..i (0-based) from an empty ledger: one per release
// plus a tree start at releases 0, H, 2H, ...
__int128 ChargesThrough(int64_t i, int64_t horizon) {
  return static_cast<__int128>(i + 1) + (horizon > 0 ? i / horizon + 1 : 0);
}

std::string Decimal(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

DpBudgetPlan PlanDpBudget(const Config& c) {
  DpBudgetPlan p;
  // With DP windows a charge is per window and running totals are sums of
  // window counts (no counter starts); otherwise per release epoch.
  const bool windows = c.dp.window_seconds > 0;
  const int64_t epoch_s = std::max<int64_t>(1, windows ? c.dp.window_seconds : c.privacy.epoch.length_seconds);
  const int64_t period_s = static_cast<int64_t>(c.dp.budget_period_days) * kDaySeconds;
  const int64_t per = Nanos(c.dp.epsilon_per_release);
  const int64_t budget = Nanos(c.dp.budget_epsilon);
  const int64_t horizon = windows ? 0 : TreeHorizon(c, epoch_s, period_s);
  // Ledger entries carry their epoch start; the window (now - period, now]
  // holds ceil(period / epoch) of them.
  p.releases_per_period = (period_s + epoch_s - 1) / epoch_s;
  p.tree_starts_per_period = horizon > 0 ? (p.releases_per_period + horizon - 1) / horizon : 0;
  const __int128 charges = static_cast<__int128>(p.releases_per_period) + p.tree_starts_per_period;
  p.epsilon_per_period = static_cast<double>(charges * per) / 1e9;
  p.lasts_period = per > 0 && charges * per <= budget;
  p.max_lasting_epsilon_per_release = static_cast<double>(static_cast<__int128>(budget) / charges) / 1e9;
  if (p.lasts_period) {
    p.releases_before_pause = p.releases_per_period;
  } else if (per > 0) {
    // Largest i with ChargesThrough(i) * per <= budget (monotone in i).
    int64_t lo = -1, hi = p.releases_per_period - 1;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo + 1) / 2;
      if (ChargesThrough(mid, horizon) * per <= budget) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    p.releases_before_pause = lo + 1;
  }
  p.seconds_before_pause = p.releases_before_pause * epoch_s;
  return p;
}

std::string FormatDuration(int64_t s) {
  const int64_t d = s / kDaySeconds, h = s % kDaySeconds / 3600, m = s % 3600 / 60, sec = s % 60;
  std::string out;
  auto part = [&](int64_t v, const char* unit) {
    if (v > 0 && out.size() < 8) out += (out.empty() ? "" : " ") + std::to_string(v) + unit;
  };
  part(d, "d");
  part(h, "h");
  if (d == 0) part(m, "m");
  if (d == 0 && h == 0) part(sec, "s");
  return out.empty() ? "0s" : out;
}

std::string DescribeDpBudget(const Config& c, const DpBudgetPlan& p) {
  const bool windows = c.dp.window_seconds > 0;
  std::string charges = std::to_string(p.releases_per_period) + (windows ? " windows" : " releases");
  if (p.tree_starts_per_period > 0) {
    charges += " + " + std::to_string(p.tree_starts_per_period) + " running-total starts";
  }
  std::string out = "dp budget: " + Decimal(p.epsilon_per_period) + " of " + Decimal(c.dp.budget_epsilon) +
                    " epsilon per " + std::to_string(c.dp.budget_period_days) + " days (" + charges + ", " +
                    Decimal(c.dp.epsilon_per_release) + " each, " +
                    std::to_string(windows ? c.dp.window_seconds : c.privacy.epoch.length_seconds) +
                    (windows ? " s windows)" : " s epochs)");
  if (p.lasts_period) return out + ": lasts the period, publication never pauses";
  return out + ": lasts " + FormatDuration(p.seconds_before_pause) + " (" + std::to_string(p.releases_before_pause) +
         (windows ? " windows" : " releases") + "), then pauses";
}

}  // namespace vanon::config
