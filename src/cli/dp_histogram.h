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
  struct Bar {
    std::string value;
    int64_t noisy = 0;  // its cells' noisy counts summed (unclamped, so that the sum is unbiased)
    size_t cells = 0;
    double std = 0;  // of the sum's noise: the cells' independent noises add their variances
  };
  // Per sensitive value with at least one record, in the order of
  // dp.sensitive_values, "other" last; a value without a record has no bar.
  std::vector<Bar> bars;
};

// The histogram of the latest release of one input partition among
// `records` (JSON count records) that has counts of `query`; nullopt when
// none does.
std::optional<DpHistogram> HistogramOf(const std::vector<std::string>& records, const std::string& query,
                                       const std::vector<std::string>& values);

// The demo's printout of `h`: a header, then one line per bar with its
// noisy count, the standard deviation of its noise and a bar of '#'.
std::string FormatDpHistogram(const DpHistogram& h);

// Prints it for the first query with the sensitive dimension, read from
// partition 0 of the counts topic. True once printed (or when there is no
// such query); false while none is published yet.
bool PrintDpHistogram(const config::Config& config);

}  // namespace vanon::cli

#endif  // VANON_SRC_CLI_DP_HISTOGRAM_H_
