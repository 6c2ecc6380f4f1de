// Stands in for the service in the in-process end-to-end test: ingests
// messages the way the service does (parse, decode the VIN, HMAC, buffer by
// partition and epoch) and releases epochs through the pure release library
// (TupleBuilder -> ComputeRelease -> WriteRelease), carrying the dictionary,
// signatures and waiting tuples with their events per partition, as
// docs/release.md "How the service uses it" describes. No Kafka and no
// EpochClock: the test says when epochs close.
#ifndef VANON_TESTS_E2E_IN_PROCESS_RELEASE_H_
#define VANON_TESTS_E2E_IN_PROCESS_RELEASE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vanon/config.h"

namespace vanon::e2e {

enum class Ingested { kBuffered, kRejected, kLate };

class InProcessRelease {
 public:
  InProcessRelease(const config::Config& config, std::string_view hmac_key, int32_t partitions);
  ~InProcessRelease();
  InProcessRelease(const InProcessRelease&) = delete;
  InProcessRelease& operator=(const InProcessRelease&) = delete;

  // kLate: the message's epoch is released already in its partition.
  Ingested Ingest(int32_t partition, std::string_view key, std::string_view value, int64_t now_ms);

  // In every partition that has buffered an event, releases each epoch not
  // yet released up to and including `epoch` (empty ones too).
  void ReleaseThrough(int64_t epoch);

  // The records in production order.
  const std::vector<std::string>& event_records() const;
  const std::vector<std::string>& release_records() const;

 private:
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace vanon::e2e

#endif  // VANON_TESTS_E2E_IN_PROCESS_RELEASE_H_
