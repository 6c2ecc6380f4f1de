#include "service/release/release_log_reader.h"

#include "vanon/kafka/committed_reader.h"
#include "vanon/release/release_writer.h"

namespace vanon::service {

bool ReleaseLogReader::SummaryCommitted(int32_t partition, int64_t epoch, const state::ReleaseLogEntry& entry) const {
  bool found = false;
  kafka::ReadCommitted(kafka_.bootstrap, kafka_.properties, kafka_.consumer_properties, kafka_.topics.releases,
                       entry.readback_partition, entry.readback_offset, [&](const kafka::CommittedRecord& r) {
                         found = release::IsSummaryOf(r.value, epoch, partition);
                         return !found;
                       });
  return found;
}

}  // namespace vanon::service
