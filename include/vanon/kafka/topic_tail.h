// Follows every partition of one topic as a read_committed consumer, without
// a consumer group (assign; nothing is committed), from the beginning or
// from the end at start. For operator tools (`vanon tail`): the service's
// own reads go through Consumer and CommittedReader.
#ifndef VANON_KAFKA_TOPIC_TAIL_H_
#define VANON_KAFKA_TOPIC_TAIL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vanon/kafka/client_config.h"

namespace vanon::kafka {

struct TailRecord {
  int32_t partition;
  int64_t offset;
  std::string_view key;
  std::string_view value;
};

// Partitions of `topic` in the cluster's metadata, 0 when it has no such
// topic. Lists every topic rather than naming this one: a request naming a
// missing topic may create it (librdkafka's mock cluster always does).
// Throws std::runtime_error when the cluster does not answer.
int32_t TopicPartitionCount(const std::string& bootstrap, const KafkaProperties& user, const std::string& topic,
                            int timeout_ms = 30000);

class TopicTail {
 public:
  enum class Start { kBeginning, kEnd };

  // Throws std::runtime_error when the topic does not exist or the cluster
  // does not answer within timeout_ms.
  TopicTail(const std::string& bootstrap, const KafkaProperties& user, const std::string& topic, Start start,
            int timeout_ms = 30000);
  ~TopicTail();
  TopicTail(const TopicTail&) = delete;
  TopicTail& operator=(const TopicTail&) = delete;

  int32_t partitions() const;

  // Up to `max` records, waiting at most timeout_ms for the first one. The
  // views stay valid until the next call. Throws on a non-retriable error.
  const std::vector<TailRecord>& Poll(size_t max, int timeout_ms);

 private:
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace vanon::kafka

#endif  // VANON_KAFKA_TOPIC_TAIL_H_
