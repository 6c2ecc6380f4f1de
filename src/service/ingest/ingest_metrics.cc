#include "service/ingest/ingest_metrics.h"

#include "service/support/metric_builders.h"
#include "vanon/ingest/reject_reason.h"
#include "vanon/version.h"

namespace vanon::service {

IngestMetrics::IngestMetrics(prometheus::Registry& r)
    : consumed(NewCounter(r, "vanon_events_consumed_total", "Messages read from the input topic.")),
      accepted(NewCounter(r, "vanon_events_accepted_total", "Messages validated and buffered in state.")),
      unknown_vin(NewCounter(r, "vanon_events_unknown_vin_total",
                             "Valid VINs absent from the decoding table (QIs set to the hierarchy root).")),
      payload_malformed_fields(NewCounter(r, "vanon_payload_malformed_fields_total",
                                          "Payload fields dropped because their transform could not read them.")),
      payload_malformed_payloads(NewCounter(r, "vanon_payload_malformed_payloads_total",
                                            "Payloads that were not a JSON object, published as {}.")),
      buffered(NewGauge(r, "vanon_events_buffered", "Accepted events held in state awaiting their release.")),
      state_bytes(NewGauge(r, "vanon_state_bytes", "RocksDB live bytes (SST files plus memtables).")),
      lag_family(NewGaugeFamily(r, "vanon_consumer_lag_messages",
                                "Input lag (high watermark minus next offset), aggregated over assigned partitions.")),
      lag_sum(lag_family.Add({{"stat", "sum"}})),
      lag_max(lag_family.Add({{"stat", "max"}})),
      partition_lag_family(NewGaugeFamily(r, "vanon_consumer_partition_lag_messages",
                                          "Input lag of one assigned partition (high watermark minus next offset).")),
      input_lost_to_retention(NewCounter(r, "vanon_input_lost_to_retention_total",
                                         "Input events the broker deleted (retention) before vanon read them.")),
      partitions(NewGauge(r, "vanon_partitions_assigned", "Input partitions currently assigned.")),
      ready(NewGauge(r, "vanon_ready", "1 when /readyz answers ready.")),
      partitions_changed(NewGauge(r, "vanon_input_partitions_changed",
                                  "1 when the input topic's partition count differs from the one state was "
                                  "written with: consumption is stopped.")),
      late_family(NewCounterFamily(r, "vanon_events_late_total",
                                   "Accepted events behind the watermark, by route (late topic or dropped).")),
      late_topic(late_family.Add({{"route", "topic"}})),
      late_drop(late_family.Add({{"route", "drop"}})) {
  auto& rej = NewCounterFamily(r, "vanon_events_rejected_total", "Messages sent to the DLQ, by reason.");
  for (ingest::RejectReason reason : ingest::kAllRejectReasons) {
    std::string name(RejectReasonName(reason));
    rejected[name] = &rej.Add({{"reason", name}});
  }
}

void IngestMetrics::SetPartitionLags(const std::map<int32_t, int64_t>& lag_by_partition) {
  for (auto it = partition_lag_.begin(); it != partition_lag_.end();) {
    if (lag_by_partition.count(it->first)) {
      ++it;
      continue;
    }
    partition_lag_family.Remove(it->second);
    it = partition_lag_.erase(it);
  }
  for (const auto& [partition, lag] : lag_by_partition) {
    prometheus::Gauge*& g = partition_lag_[partition];
    if (!g) g = &partition_lag_family.Add({{"partition", std::to_string(partition)}});
    g->Set(static_cast<double>(lag));
  }
}

void RegisterBuildInfo(prometheus::Registry& r) {
  prometheus::BuildGauge()
      .Name("vanon_build_info")
      .Help("Build identification; always 1.")
      .Register(r)
      .Add({{"version", kVersion}, {"revision", kRevision}})
      .Set(1);
}

}  // namespace vanon::service
