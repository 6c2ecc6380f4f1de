// Where the aggregation partition's share reads the exact window counts of
// all input partitions from (docs/dp.md "Global counts"): partition
// 0 of the internal topic dp.aggregation.topic, read_committed.
#ifndef VANON_SRC_SERVICE_DP_DP_PARTIAL_SOURCE_H_
#define VANON_SRC_SERVICE_DP_DP_PARTIAL_SOURCE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "vanon/config.h"

namespace vanon::seal {
class RecordSealer;
}  // namespace vanon::seal

namespace vanon::service {

class DpPartialSource {
 public:
  virtual ~DpPartialSource() = default;
  // Visits the committed records with from <= offset < bound (bound < 0: up
  // to the end there is now) in offset order.
  using Visit = std::function<void(int64_t offset, std::string_view value)>;
  virtual void Read(int64_t from, int64_t bound, const Visit& fn) = 0;
};

// ReadCommitted on config.dp.aggregation.topic, partition 0; every value is
// opened with `sealer` (which must outlive the source), and one that does
// not open stops the read with an exception naming its offset and key id.
std::unique_ptr<DpPartialSource> NewKafkaPartialSource(const config::Config& config, const seal::RecordSealer* sealer);

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_DP_DP_PARTIAL_SOURCE_H_
