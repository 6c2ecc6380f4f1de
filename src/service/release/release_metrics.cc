#include "service/release/release_metrics.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "service/support/metric_builders.h"
#include "vanon/engine/release.h"

namespace vanon::service {

namespace {
// Upper bounds (le) of the event-to-publication latency, in seconds.
const std::vector<double> kLatencyBuckets = {1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600};
// A ratio of an empty release is not a number; the gauge keeps its last
// finite value rather than exporting NaN to alert rules.
void SetFinite(prometheus::Gauge& g, double v) {
  if (std::isfinite(v)) g.Set(v);
}
prometheus::Counter& PrecomputeCounter(prometheus::Registry& r, const char* outcome) {
  return NewCounterFamily(r, "vanon_release_precomputes_total",
                          "Partition shares computed ahead of their epoch's close, by outcome: used, or "
                          "dropped (an event of the epoch arrived later) and computed again at the close.")
      .Add({{"outcome", outcome}});
}
}  // namespace

ReleaseMetricsExporter::ReleaseMetricsExporter(prometheus::Registry& r, const config::PrivacyConfig& privacy)
    : releases_(NewCounter(r, "vanon_releases_total", "Partition shares of releases committed.")),
      check_failures_(NewCounter(r, "vanon_release_check_failures_total",
                                 "Partition shares the independent checker found wrong: withheld, their batch "
                                 "aborted and computed again.")),
      last_release_ts_(NewGauge(r, "vanon_last_release_timestamp_seconds",
                                "Wall time of the last committed release (Unix seconds).")),
      suppression_ratio_(
          NewGauge(r, "vanon_release_suppression_ratio", "Suppressed / all tuples of the last release.")),
      published_total_(NewCounter(r, "vanon_tuples_published_total", "Real tuples published.")),
      counterfeits_total_(NewCounter(r, "vanon_counterfeits_total", "Counterfeit tuples published.")),
      qi_at_root_total_(NewCounter(r, "vanon_release_qi_at_root_total",
                                   "Numeric QI values with no exact code (not a number, out of range, too "
                                   "many decimals), published under the root; one per vehicle and QI.")),
      discernibility_(
          NewGauge(r, "vanon_release_discernibility_penalty", "Discernibility penalty of the last release (raw).")),
      discernibility_normalized_(
          NewGauge(r, "vanon_release_discernibility_normalized", "Discernibility penalty divided by |T|^2.")),
      emd_max_(
          NewGauge(r, "vanon_release_emd_max", "Largest EMD between a group and the release (equal-distance form).")),
      min_group_size_(
          NewGauge(r, "vanon_release_min_group_size", "Distinct vehicles in the smallest group of the last release.")),
      min_distinct_(NewGauge(r, "vanon_release_min_distinct_sensitive",
                             "Fewest distinct sensitive values in a group of the last release.")),
      avg_group_size_(NewGauge(r, "vanon_release_avg_group_size", "Published tuples per group.")),
      ncp_(NewGauge(r, "vanon_release_ncp", "Average normalized certainty penalty of the last release.")),
      counterfeit_ratio_(
          NewGauge(r, "vanon_release_counterfeit_ratio", "Counterfeit / all published tuples of the last release.")),
      waiting_(NewGauge(r, "vanon_tuples_waiting", "Tuples held in state for a later release.")),
      duration_(NewHistogram(r, "vanon_release_duration_seconds",
                             "From the epoch becoming closable to the transaction commit.",
                             {0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60})),
      latency_(NewHistogram(r, "vanon_event_to_publication_latency_seconds",
                            "From an event's time to the commit of the release publishing it.", kLatencyBuckets)),
      events_released_(NewCounter(r, "vanon_events_released_total", "Events published in the anonymized topic.")),
      precompute_used_(PrecomputeCounter(r, "used")),
      precompute_dropped_(PrecomputeCounter(r, "dropped")) {
  auto& by_reason = NewGaugeFamily(r, "vanon_release_suppression_ratio_by_reason",
                                   "Suppressed / all tuples of the last release, by reason.");
  auto& suppressed = NewCounterFamily(r, "vanon_tuples_suppressed_total", "Tuples suppressed, by reason.");
  for (int i = 0; i < engine::kSuppressReasonCount; ++i) {
    const char* reason = ToString(static_cast<engine::SuppressReason>(i));
    suppression_by_reason_[i] = &by_reason.Add({{"reason", reason}});
    suppressed_total_[i] = &suppressed.Add({{"reason", reason}});
  }
  bool m_inv = privacy.model == config::PrivacyModel::kMInvariance;
  NewGauge(r, "vanon_privacy_required_group_size", "Configured m (m-invariance) or k (k-anonymity).")
      .Set(m_inv ? privacy.m : privacy.k);
  NewGauge(r, "vanon_privacy_t", "Configured t-closeness cap (0 when unset).").Set(privacy.t);
  // Which privacy.preset runs, so a dashboard shows it beside the trends it
  // shapes; customized when a key the preset sets has another value.
  NewGaugeFamily(r, "vanon_privacy_preset_info",
                 "1, labelled with the privacy.preset that runs (customized: a key it sets was changed).")
      .Add({{"preset", config::ToString(privacy.preset)}, {"customized", privacy.preset_customized ? "true" : "false"}})
      .Set(1);
}

void ReleaseMetricsExporter::Record(const CommittedRelease& c) {
  const engine::ReleaseMetrics& m = c.metrics;
  releases_.Increment();
  last_release_ts_.Set(static_cast<double>(c.commit_wall_ms) / 1000.0);
  published_total_.Increment(static_cast<double>(m.published));
  counterfeits_total_.Increment(static_cast<double>(m.counterfeits));
  qi_at_root_total_.Increment(static_cast<double>(c.qi_at_root));
  events_released_.Increment(static_cast<double>(c.released_events));
  for (int i = 0; i < engine::kSuppressReasonCount; ++i) {
    suppressed_total_[i]->Increment(static_cast<double>(m.suppressed_by_reason[i]));
  }
  waiting_.Set(static_cast<double>(m.waiting));
  duration_.Observe(c.duration_seconds);
  // A share without tuples has no groups: its minimum group size would read
  // 0 and trip the "group below m" alert, so the gauges keep describing the
  // last share that published something.
  if (m.tuples == 0) return;
  SetFinite(suppression_ratio_, m.suppression_ratio);
  for (int i = 0; i < engine::kSuppressReasonCount; ++i) {
    SetFinite(*suppression_by_reason_[i], m.suppression_ratio_by_reason[i]);
  }
  if (m.groups == 0) return;
  SetFinite(discernibility_, m.discernibility);
  SetFinite(discernibility_normalized_, m.discernibility_normalized);
  SetFinite(emd_max_, m.emd_max_equal);
  min_group_size_.Set(static_cast<double>(m.min_group_size));
  min_distinct_.Set(static_cast<double>(m.min_distinct));
  SetFinite(avg_group_size_, m.avg_group_size);
  SetFinite(ncp_, m.ncp);
  SetFinite(counterfeit_ratio_, m.counterfeit_ratio);
}

void ReleaseMetricsExporter::ObserveLatencies(std::span<const int64_t> event_ts_ms, int64_t commit_wall_ms) {
  // A release has up to millions of events: count them into the buckets
  // here and hand the histogram one update.
  const std::vector<double>& bounds = kLatencyBuckets;
  std::vector<double> counts(bounds.size() + 1, 0.0);
  double sum = 0;
  for (int64_t ts : event_ts_ms) {
    const double s = static_cast<double>(commit_wall_ms - ts) / 1000.0;
    sum += s;
    counts[static_cast<size_t>(std::lower_bound(bounds.begin(), bounds.end(), s) - bounds.begin())] += 1;
  }
  latency_.ObserveMultiple(counts, sum);
}

void ReleaseMetricsExporter::RestoreLastRelease(int64_t commit_wall_ms) {
  last_release_ts_.Set(static_cast<double>(commit_wall_ms) / 1000.0);
}

}  // namespace vanon::service
