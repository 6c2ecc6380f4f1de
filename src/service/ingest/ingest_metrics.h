// Prometheus series for ingestion (names in docs/metrics.md). Labels are
// low-cardinality by construction: reasons are a fixed enum, lag is
// aggregated over partitions and also given per input partition number
// (bounded by the topic's partition count; never an identifier).
#ifndef VANON_SRC_SERVICE_INGEST_INGEST_METRICS_H_
#define VANON_SRC_SERVICE_INGEST_INGEST_METRICS_H_

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace vanon::service {

struct IngestMetrics {
  explicit IngestMetrics(prometheus::Registry& r);

  prometheus::Counter& consumed;
  prometheus::Counter& accepted;
  prometheus::Counter& unknown_vin;
  prometheus::Counter& payload_malformed_fields;         // dropped: a transform could not read them
  prometheus::Counter& payload_malformed_payloads;       // not a JSON object: stored as {}
  std::map<std::string, prometheus::Counter*> rejected;  // every reason pre-created
  prometheus::Gauge& buffered;
  prometheus::Gauge& state_bytes;
  prometheus::Family<prometheus::Gauge>& lag_family;
  prometheus::Gauge& lag_sum;
  prometheus::Gauge& lag_max;
  // vanon_consumer_partition_lag_messages{partition="N"}: one series per
  // assigned input partition, so that an SRE sees which partition falls
  // behind and whether it catches up.
  prometheus::Family<prometheus::Gauge>& partition_lag_family;
  prometheus::Counter& input_lost_to_retention;
  prometheus::Gauge& partitions;
  prometheus::Gauge& ready;
  prometheus::Gauge& partitions_changed;  // 1: consumption stopped (PartitionGuard)
  prometheus::Family<prometheus::Counter>& late_family;
  prometheus::Counter& late_topic;  // vanon_events_late_total{route="topic"}
  prometheus::Counter& late_drop;   // vanon_events_late_total{route="drop"}

  prometheus::Counter& Rejected(const std::string& reason) { return *rejected.at(reason); }
  // Sets the lag of every assigned partition; drops the series of
  // partitions no longer assigned (they belong to another instance now).
  void SetPartitionLags(const std::map<int32_t, int64_t>& lag_by_partition);

 private:
  std::map<int32_t, prometheus::Gauge*> partition_lag_;
};

// Registers vanon_build_info{version,revision} = 1.
void RegisterBuildInfo(prometheus::Registry& r);

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_INGEST_INGEST_METRICS_H_
