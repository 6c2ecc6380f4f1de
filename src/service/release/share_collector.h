// ShareCollector produces one computed share's records into the open
// transaction of its batch, and maps an input partition to the output
// partitions its records go to: the anonymized events, the DP counts, the
// exact DP partials for the aggregation partition (sealed), the release
// groups and, last, the summary, which crash read-back looks for.
#ifndef VANON_SRC_SERVICE_RELEASE_SHARE_COLLECTOR_H_
#define VANON_SRC_SERVICE_RELEASE_SHARE_COLLECTOR_H_

#include <cstdint>

#include "service/release/release_runner.h"
#include "service/share/release_share.h"
#include "vanon/config.h"
#include "vanon/kafka/producer.h"

namespace vanon::service {

class ShareCollector {
 public:
  ShareCollector(const config::Config& config, kafka::TransactionalProducer* producer, OutputTopology topology)
      : config_(config), producer_(producer), topology_(topology) {}

  // With global DP counts on, before the first share.
  void SetPartialSealer(seal::RecordSealer* sealer) { partial_sealer_ = sealer; }

  int32_t ReleasesPartition(int32_t p) const { return p % topology_.releases_partitions; }
  int32_t AnonymizedPartition(int32_t p) const { return p % topology_.anonymized_partitions; }
  int32_t CountsPartition(int32_t p) const { return p % topology_.counts_partitions; }

  // `mid_produce_point`: the fault point release.mid_produce may still fire
  // in this transaction; it fires in the first share that has events to
  // split (an empty share would leave nothing of the transaction behind).
  void Produce(const ComputedShare& s, const kafka::KafkaHeaders& headers, bool* mid_produce_point);

 private:
  const config::Config& config_;
  kafka::TransactionalProducer* producer_;
  const OutputTopology topology_;
  seal::RecordSealer* partial_sealer_ = nullptr;
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_RELEASE_SHARE_COLLECTOR_H_
