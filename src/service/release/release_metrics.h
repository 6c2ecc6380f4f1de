// Prometheus series for releases (names and meaning in docs/metrics.md).
// Gauges describe the last committed partition share of a release; counters
// add up over all of them. No label ever carries a release, group or vehicle.
#ifndef VANON_SRC_SERVICE_RELEASE_RELEASE_METRICS_H_
#define VANON_SRC_SERVICE_RELEASE_RELEASE_METRICS_H_

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <array>
#include <cstdint>
#include <span>

#include "vanon/config.h"
#include "vanon/engine/metrics.h"

namespace vanon::service {

struct CommittedRelease {
  engine::ReleaseMetrics metrics;
  uint64_t released_events = 0;
  uint64_t qi_at_root = 0;      // BuiltTuples::qi_at_root of the share
  double duration_seconds = 0;  // epoch closable -> transaction committed
  int64_t commit_wall_ms = 0;
};

class ReleaseMetricsExporter {
 public:
  ReleaseMetricsExporter(prometheus::Registry& r, const config::PrivacyConfig& privacy);

  void Record(const CommittedRelease& c);
  // Event time to commit, one observation per published event.
  void ObserveLatencies(std::span<const int64_t> event_ts_ms, int64_t commit_wall_ms);
  void SetWaiting(uint64_t tuples) { waiting_.Set(static_cast<double>(tuples)); }
  // A share computed ahead of its close was used, or dropped because an
  // event of its epoch arrived after it was taken.
  void Precomputed(bool used) { (used ? precompute_used_ : precompute_dropped_).Increment(); }
  // ReleaseChecker found a share wrong: its batch was aborted, nothing of
  // the share produced.
  void CheckFailed() { check_failures_.Increment(); }
  // At start: the last commit time found in state, so the staleness alert
  // does not fire (or stay silent) because of a restart.
  void RestoreLastRelease(int64_t commit_wall_ms);

 private:
  prometheus::Counter& releases_;
  prometheus::Counter& check_failures_;
  prometheus::Gauge& last_release_ts_;
  prometheus::Gauge& suppression_ratio_;
  std::array<prometheus::Gauge*, 3> suppression_by_reason_{};
  std::array<prometheus::Counter*, 3> suppressed_total_{};
  prometheus::Counter& published_total_;
  prometheus::Counter& counterfeits_total_;
  prometheus::Counter& qi_at_root_total_;
  prometheus::Gauge& discernibility_;
  prometheus::Gauge& discernibility_normalized_;
  prometheus::Gauge& emd_max_;
  prometheus::Gauge& min_group_size_;
  prometheus::Gauge& min_distinct_;
  prometheus::Gauge& avg_group_size_;
  prometheus::Gauge& ncp_;
  prometheus::Gauge& counterfeit_ratio_;
  prometheus::Gauge& waiting_;
  prometheus::Histogram& duration_;
  prometheus::Histogram& latency_;
  prometheus::Counter& events_released_;
  prometheus::Counter& precompute_used_;
  prometheus::Counter& precompute_dropped_;
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_RELEASE_RELEASE_METRICS_H_
