// The release producer: every record of one partition's share of a release
// goes out in one Kafka transaction, so a read_committed consumer sees the
// whole release or nothing.
//
// transactional.id = "<prefix>-<instance>": stable across restarts of the
// same instance, so InitTransactions() fences a previous incarnation and
// aborts whatever transaction it left open.
#ifndef VANON_KAFKA_TRANSACTIONAL_PRODUCER_H_
#define VANON_KAFKA_TRANSACTIONAL_PRODUCER_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

#include "vanon/kafka/client_config.h"
#include "vanon/kafka/producer.h"  // KafkaHeaders

namespace RdKafka {
class Producer;
class ConsumerGroupMetadata;
}  // namespace RdKafka
struct rd_kafka_topic_s;

namespace vanon::kafka {

// Thrown when the current transaction failed but may be retried after
// AbortTransaction() (librdkafka's txn_requires_abort).
struct AbortableKafkaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Thrown when the producer can no longer be used (fenced, fatal error).
struct FatalKafkaError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// The consumer group refused the transaction's offsets (SendOffsets): the
// instance is a zombie, its partitions belong to another member now. The
// open transaction must be aborted and nothing of it applied; the producer
// itself is not broken, but the instance must rejoin before it may publish.
struct FencedByGroupError : FatalKafkaError {
  using FatalKafkaError::FatalKafkaError;
};
// Thrown by the constructor when `stop` was set while init_transactions was
// still waiting for the broker: a stop during start-up, not a failure.
struct KafkaStartInterrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class TransactionalProducer {
 public:
  // Creates the producer and calls init_transactions (retrying retriable
  // errors up to timeout_ms). Throws FatalKafkaError on failure, and
  // KafkaStartInterrupted soon after `stop` (may be null) is set: with the
  // broker unreachable the wait is otherwise the whole timeout, longer than
  // Kubernetes' 30 s grace period after SIGTERM.
  TransactionalProducer(const std::string& bootstrap, const std::string& transactional_id, const KafkaProperties& user,
                        const KafkaProperties& user_specific, int timeout_ms = 60000,
                        const std::atomic<bool>* stop = nullptr);
  ~TransactionalProducer();
  TransactionalProducer(const TransactionalProducer&) = delete;
  TransactionalProducer& operator=(const TransactionalProducer&) = delete;

  void BeginTransaction();
  // Queues one record of the open transaction to an explicit partition
  // (>= 0). Blocks while the local queue is full. `timestamp_ms`: the
  // record's timestamp (ms since the Unix epoch); 0 reads the clock. A
  // caller producing many records at once passes one reading for all:
  // librdkafka's own reading, per record, was visible in profiles.
  void Produce(const std::string& topic, int32_t partition, std::string_view key, std::string_view value,
               const KafkaHeaders& headers = {}, int64_t timestamp_ms = 0);
  // Sends every queued record to the broker without committing (used by
  // tests and fault injection to make "records on the broker, transaction
  // open" a reachable state). False on timeout.
  bool Flush(int timeout_ms);
  // Flushes and commits. Throws AbortableKafkaError or FatalKafkaError.
  void CommitTransaction(int timeout_ms = 60000);
  void AbortTransaction(int timeout_ms = 60000);
  // Commits the input consumer's offsets (topic, partition -> next offset
  // to read) inside the open transaction (send_offsets_to_transaction): they
  // become visible with its records or not at all, and the group's
  // generation in `group` fences a consumer that lost the partitions:
  // the coordinator's answer to that (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID,
  // FENCED_INSTANCE_ID) throws FencedByGroupError at once, not an
  // AbortableKafkaError to retry.
  void SendOffsets(const std::string& topic, const std::map<int32_t, int64_t>& next_offsets,
                   const RdKafka::ConsumerGroupMetadata& group, int timeout_ms = 60000);

  // Partition count of a topic from broker metadata. Throws if the topic
  // does not exist.
  int32_t PartitionCount(const std::string& topic, int timeout_ms = 10000);
  // The end offsets of partitions of a topic, in one ListOffsets request
  // per partition leader rather than a round trip per partition. Each is
  // the high watermark, or the last stable offset where the broker keeps
  // transactions apart (isolation.level is read_committed): either way no
  // record produced after the call lands before it. Throws on error.
  std::map<int32_t, int64_t> EndOffsets(const std::string& topic, const std::set<int32_t>& partitions,
                                        int timeout_ms = 10000);

 private:
  class Reporter;
  void ThrowIfFailed(const char* what);

  // Declared before producer_ so it outlives it: librdkafka may still call
  // the delivery report callback while the producer is being torn down.
  std::unique_ptr<Reporter> reporter_;
  std::unique_ptr<RdKafka::Producer> producer_;
  // Each transaction gets a new generation, carried in every record's opaque,
  // so a late delivery report of an aborted transaction is not charged to
  // the next one.
  uint64_t generation_ = 0;
  bool in_transaction_ = false;
  // librdkafka topic handles by name, created on first use; destroyed
  // before producer_.
  std::map<std::string, rd_kafka_topic_s*> topics_;
};

}  // namespace vanon::kafka

#endif  // VANON_KAFKA_TRANSACTIONAL_PRODUCER_H_
