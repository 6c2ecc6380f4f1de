// The vanon_dp_* metrics (docs/metrics.md), registered once per publisher
// whatever the mode, so that dashboards and alerts find the same series.
#ifndef VANON_SRC_SERVICE_DP_DP_METRICS_H_
#define VANON_SRC_SERVICE_DP_DP_METRICS_H_

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

namespace vanon::service {

struct DpMetrics {
  explicit DpMetrics(prometheus::Registry& registry);

  prometheus::Gauge& budget;
  prometheus::Gauge& spent;      // the most spent by any partition
  prometheus::Gauge& remaining;  // the least remaining on any partition
  prometheus::Gauge& exhausted;
  prometheus::Counter& cells;
  prometheus::Counter& cut;
  prometheus::Family<prometheus::Counter>& global_windows;  // by completeness
  prometheus::Counter& global_complete;
  prometheus::Counter& global_incomplete;
  prometheus::Counter& partials_dropped;
  // Wall time this instance last published a global window (or first ran
  // the aggregation); 0 where it never did (VanonDpGlobalCountsStalled).
  prometheus::Gauge& global_last_published;
  prometheus::Gauge& global_max_wait;  // 0 without dp.aggregation
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_DP_DP_METRICS_H_
