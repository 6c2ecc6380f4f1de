// One vehicle.counts.dp record (privacy-model.md section 4; normative shape in
// schemas/dp-count.v1.schema.json).

#ifndef VANON_DP_COUNT_RECORD_H_
#define VANON_DP_COUNT_RECORD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "vanon/dp/bounded_counter.h"

namespace vanon::dp {

struct DpCountRecord {
  uint64_t release = 0;
  std::string query;
  Cell cell;
  enum class Kind { kCount, kRatio } kind = Kind::kCount;
  int64_t count = 0;  // kCount: noisy count after post-processing
  // kCount: the noisy count before post-processing (true + noise, may be
  // negative). Sums over cells, partitions or windows must add these: the
  // clamped counts are biased upwards and their bias adds up. In JSON as
  // "unclamped" when clamping changed the value.
  int64_t noisy = 0;
  double ratio = 0;  // kRatio: noisy numerator / noisy denominator
  // kRatio: the post-processed noisy counts the ratio was computed from.
  int64_t numerator = 0;
  int64_t denominator = 0;
  // kRatio: the noisy counts before clamping ("unclamped_numerator" and
  // "unclamped_denominator" in JSON when clamping changed them).
  int64_t noisy_numerator = 0;
  int64_t noisy_denominator = 0;
  double epsilon = 0;        // spent on this record's query in this release
  uint64_t sensitivity = 0;  // L1 sensitivity the noise was scaled to
  std::string mechanism;
  std::vector<std::string> postprocessed;
};

// One line of JSON (no trailing newline), keys in a fixed order.
std::string ToJson(const DpCountRecord& record);

}  // namespace vanon::dp

#endif  // VANON_DP_COUNT_RECORD_H_
