// DP counts as the demo prints them: each count with the standard deviation
// of its noise, and one line on what the demo's budget makes of them.
#ifndef VANON_SRC_CLI_DP_READOUT_H_
#define VANON_SRC_CLI_DP_READOUT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "vanon/config.h"

namespace vanon::cli {

// Standard deviation of discrete Laplace noise for one count (the variance
// of dp::DiscreteLaplace: 2a / (1 - a)^2 with a = exp(-epsilon / sensitivity)).
double NoiseStd(double epsilon, double sensitivity);

struct DpCountReadout {
  std::string query;
  std::string cell;  // "engine=EV", dimensions joined by commas
  std::string mechanism;
  int64_t value = 0;  // as published (clamped at 0)
  int64_t noisy = 0;  // before clamping ("unclamped" when present)
  double epsilon = 0;
  uint64_t sensitivity = 0;
  std::optional<double> std;  // none for running totals, whose noise depends on what they cover
};

// The count record in `json`; nullopt for a ratio record. Throws
// std::invalid_argument when the record is not JSON or lacks a field.
std::optional<DpCountReadout> ParseDpCount(std::string_view json);

// "vehicles_by_engine engine=EV: 37 +- 5.6 (noise std; epsilon 1 per count, sensitivity 4)"
std::string Describe(const DpCountReadout& c);

// What the config's budget makes of a count (`vehicles`: the demo's fleet,
// an upper bound of any cell at one unit per vehicle), and the demo
// settings under which a typical count's error is smaller than its value.
std::string DescribeDpBudgetForDemo(const config::Config& config, uint64_t vehicles);

}  // namespace vanon::cli

#endif  // VANON_SRC_CLI_DP_READOUT_H_
