// ReleaseLogReader answers, after a crash between publish and apply, the one
// question the local release log cannot: did the earlier attempt at a
// prepared release commit its transaction? It reads the releases topic
// (read_committed) from the offset that prepare stored in the log entry and
// looks for the release's summary.
#ifndef VANON_SRC_SERVICE_RELEASE_RELEASE_LOG_READER_H_
#define VANON_SRC_SERVICE_RELEASE_RELEASE_LOG_READER_H_

#include <cstdint>

#include "vanon/config.h"
#include "vanon/state/release_state.h"

namespace vanon::service {

class ReleaseLogReader {
 public:
  explicit ReleaseLogReader(const config::KafkaConfig& kafka) : kafka_(kafka) {}

  // True when the summary of the partition's release of `epoch` follows the
  // read-back offset of its prepared entry. Blocks on Kafka; any thread.
  bool SummaryCommitted(int32_t partition, int64_t epoch, const state::ReleaseLogEntry& entry) const;

 private:
  const config::KafkaConfig& kafka_;
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_RELEASE_RELEASE_LOG_READER_H_
