// Reads one partition of a topic as a read_committed consumer would see it,
// from an offset up to the end that exists when the call starts. The service
// uses it after a crash to find out whether a release transaction it had
// started was committed (its summary record is then visible).
#ifndef VANON_KAFKA_COMMITTED_READER_H_
#define VANON_KAFKA_COMMITTED_READER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "vanon/kafka/client_config.h"

namespace vanon::kafka {

struct CommittedRecord {
  int64_t offset;
  int64_t end;  // the last stable offset the read stops at (for progress)
  std::string_view key;
  std::string_view value;
};

// Visits committed records of topic/partition with offset >= from_offset in
// offset order, until the last stable offset at call time; fn returns false
// to stop early. Uses a short-lived consumer with isolation.level =
// read_committed and no group offsets (assign + seek; nothing is committed).
// Records below the log start (deleted by retention) are simply skipped.
// Throws std::runtime_error on a broker error or after timeout_ms.
void ReadCommitted(const std::string& bootstrap, const KafkaProperties& user, const KafkaProperties& user_specific,
                   const std::string& topic, int32_t partition, int64_t from_offset,
                   const std::function<bool(const CommittedRecord&)>& fn, int timeout_ms = 30000);

// The same reads over one long-lived consumer, for a partition read again
// and again (the aggregation partition reads the DP partial topic in every
// release): the consumer and its connections are made once, each Read
// assigns the partition at its start offset (a local operation, the seek).
// One caller at a time.
class CommittedReader {
 public:
  CommittedReader(const std::string& bootstrap, const KafkaProperties& user, const KafkaProperties& user_specific,
                  const std::string& topic, int32_t partition);
  ~CommittedReader();
  CommittedReader(const CommittedReader&) = delete;
  CommittedReader& operator=(const CommittedReader&) = delete;

  // As ReadCommitted above, from `from_offset`.
  void Read(int64_t from_offset, const std::function<bool(const CommittedRecord&)>& fn, int timeout_ms = 30000);

 private:
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace vanon::kafka

#endif  // VANON_KAFKA_COMMITTED_READER_H_
