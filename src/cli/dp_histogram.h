// The demo's view of the suppression-free channel: one release's DP
// histogram of the sensitive value (a dp query with the `sensitive`
// dimension), as a consumer of vehicle.counts.dp reads it.
#ifndef VANON_SRC_CLI_DP_HISTOGRAM_H_
#define VANON_SRC_CLI_DP_HISTOGRAM_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vanon/config.h"

namespace vanon::cli {

struct DpHistogram {
  std::string query;
  int64_t release = 0;
  int64_t partition = 0;
  double scale = 0;  // of each cell's discrete Laplace noise: sensitivity / epsilon
  size_t cells = 0;  // records summed (sensitive value x other dimensions)
  // Per sensitive value: the noisy counts of its cells summed (unclamped, so
  // that the sum is unbiased), in the order of dp.sensitive_values, "other"
  // last.
  std::vector<std::pair<std::string, int64_t>> bars;
};

// The histogram of the latest release of one input partition among
// `records` (JSON count records) that has counts of `query`; nullopt when
// none does.
std::optional<DpHistogram> HistogramOf(const std::vector<std::string>& records, const std::string& query,
                                       const std::vector<std::string>& values);

// Prints it for the first query with the sensitive dimension, read from
// partition 0 of the counts topic. True once printed (or when there is no
// such query); false while none is published yet.
bool PrintDpHistogram(const config::Config& config);

}  // namespace vanon::cli

#endif  // VANON_SRC_CLI_DP_HISTOGRAM_H_
