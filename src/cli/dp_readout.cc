#include "dp_readout.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <cmath>
#include <stdexcept>

#include "vanon/config/dp_budget.h"

namespace vanon::cli {

double NoiseStd(double epsilon, double sensitivity) {
  const double a = std::exp(-epsilon / sensitivity);
  return std::sqrt(2 * a) / (1 - a);
}

std::optional<DpCountReadout> ParseDpCount(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::object o;
  if (parser.parse(padded).get(o) != simdjson::SUCCESS) throw std::invalid_argument("not a JSON object");
  std::string_view kind = "count";
  if (o["kind"].error() == simdjson::SUCCESS && o["kind"].get(kind) != simdjson::SUCCESS) {
    throw std::invalid_argument("bad \"kind\"");
  }
  if (kind != "count") return std::nullopt;
  DpCountReadout c;
  std::string_view query, mechanism;
  simdjson::dom::object cell;
  if (o["query"].get(query) || o["mechanism"].get(mechanism) || o["cell"].get(cell) || o["value"].get(c.value) ||
      o["epsilon"].get(c.epsilon) || o["sensitivity"].get(c.sensitivity)) {
    throw std::invalid_argument("DP count record without query, cell, value, epsilon or sensitivity");
  }
  c.query = query;
  c.mechanism = mechanism;
  for (auto [dim, v] : cell) {
    std::string_view s;
    if (v.get(s) != simdjson::SUCCESS) throw std::invalid_argument("bad cell value");
    c.cell += fmt::format("{}{}={}", c.cell.empty() ? "" : ",", dim, s);
  }
  c.noisy = c.value;
  if (o["unclamped"].error() == simdjson::SUCCESS && o["unclamped"].get(c.noisy) != simdjson::SUCCESS) {
    throw std::invalid_argument("bad \"unclamped\"");
  }
  // Per-release and per-window counts: one draw at this epsilon. Running
  // totals sum many draws (or tree blocks): no single-record figure.
  if (c.mechanism == "discrete_laplace") c.std = NoiseStd(c.epsilon, static_cast<double>(c.sensitivity));
  return c;
}

namespace {

// 5.6, 56, 282843: one decimal where it matters.
std::string Round(double v) { return v < 100 ? fmt::format("{:.1f}", v) : fmt::format("{:.0f}", v); }

}  // namespace

std::string Describe(const DpCountReadout& c) {
  std::string out = fmt::format("{} {}: {}", c.query, c.cell, c.value);
  if (c.noisy != c.value) out += fmt::format(" (unclamped {}: sum this one)", c.noisy);
  if (!c.std) return out + fmt::format(" ({}: its noise depends on how many draws it sums, docs/dp.md)", c.mechanism);
  return out + fmt::format(" +- {} (noise std; epsilon {:g} per count, sensitivity {})", Round(*c.std), c.epsilon,
                           c.sensitivity);
}

namespace {

constexpr const char* kNoPrivacy =
    "Such a budget protects no one; it only shows the mechanism. A production budget stays near 10 per month "
    "(config/vanon.yaml: 0.01 per hour-long window) and gets small relative errors from cells of thousands of "
    "vehicles, not from a large epsilon.";

// The sensitivity of the config's first count query: C x L, or L for
// distinct vehicles (docs/dp.md, "Contribution bounding").
double FirstSensitivity(const config::DpConfig& dp) {
  const bool vehicles = !dp.queries.empty() && dp.queries.front().count == config::DpCount::kVehicles;
  return static_cast<double>(vehicles ? dp.max_cells : dp.max_per_cell * dp.max_cells);
}

}  // namespace

std::string DescribeDpBudgetForDemo(const config::Config& config, uint64_t vehicles) {
  const config::DpConfig& dp = config.dp;
  const size_t measurements = dp.queries.size() + 2 * dp.kpis.size();
  if (!dp.enabled || measurements == 0) return "DP counts: off";
  const double sensitivity = FirstSensitivity(dp);
  const double per_count = dp.epsilon_per_release / static_cast<double>(measurements);
  const double std = NoiseStd(per_count, sensitivity);
  const double largest_cell = static_cast<double>(vehicles * static_cast<uint64_t>(dp.max_per_cell));
  std::string out = fmt::format(
      "DP counts: epsilon_per_release {:g} over {} measurements is {:g} per count, so each count's noise has std "
      "{} (sensitivity {:g}); a cell holds at most about {:g} (the fleet, {} per vehicle): ",
      dp.epsilon_per_release, measurements, per_count, Round(std), sensitivity, largest_cell, dp.max_per_cell);
  if (std < largest_cell / 10) {
    const config::DpBudgetPlan plan = config::PlanDpBudget(config);
    out += fmt::format("the counts carry the signal, at {:g} epsilon per {} day(s)", plan.epsilon_per_period,
                       dp.budget_period_days);
    return out + (plan.epsilon_per_period > 100 ? ".\n  " + std::string(kNoPrivacy) : ".");
  }
  // One epsilon per count: std about 5.6 at sensitivity 4.
  config::Config readable = config;
  readable.dp.epsilon_per_release = static_cast<double>(measurements);
  const double budget = std::ceil(config::PlanDpBudget(readable).epsilon_per_period);
  return out + fmt::format(
                   "the counts above are noise.\n"
                   "  Readable counts (std {}): vanon demo --set dp.epsilon_per_release={} --set "
                   "dp.budget.epsilon={:g}\n"
                   "  That spends {:g} epsilon per {} day(s). {}",
                   Round(NoiseStd(1, sensitivity)), measurements, budget, budget, dp.budget_period_days, kNoPrivacy);
}

}  // namespace vanon::cli
