// The input consumer. Offsets are owned by vanon's state store, not by Kafka:
// on assignment the caller says where each partition resumes (the offset it
// stored in RocksDB together with the state that offset produced), so a
// restart neither loses nor re-buffers events.
#ifndef VANON_KAFKA_CONSUMER_H_
#define VANON_KAFKA_CONSUMER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vanon/kafka/client_config.h"

namespace RdKafka {
class ConsumerGroupMetadata;
class KafkaConsumer;
}  // namespace RdKafka
struct rd_kafka_message_s;
struct rd_kafka_queue_s;

namespace vanon::kafka {

struct InputMessage {
  int32_t partition;
  int64_t offset;
  std::string_view key;
  std::string_view value;
};

// Input the broker deleted (retention) before it was read: offsets
// [from, to) of a partition. The consumer resumes at `to`.
struct LostInput {
  int32_t partition;
  int64_t from;
  int64_t to;
};

class Consumer {
 public:
  // Returns the offset to resume from, or nullopt to start at the earliest.
  using ResumeFn = std::function<std::optional<int64_t>(int32_t partition)>;
  // Called before partitions are taken away (after the current batch is done).
  using RevokeFn = std::function<void(const std::vector<int32_t>& partitions)>;

  // max_message_bytes: the largest message the caller wants to see whole.
  Consumer(const std::string& bootstrap, const std::string& group_id, const std::string& topic,
           size_t max_message_bytes, const KafkaProperties& user, const KafkaProperties& user_specific, ResumeFn resume,
           RevokeFn revoke);
  ~Consumer();
  Consumer(const Consumer&) = delete;
  Consumer& operator=(const Consumer&) = delete;

  // Reads up to max messages, waiting at most timeout_ms for the first one.
  // The returned views stay valid until the next call. Fatal consumer errors
  // throw; transient ones are retried by librdkafka.
  // A fetch position that retention deleted is not skipped silently (as
  // auto.offset.reset=earliest would): Poll reports it in lost() and goes
  // on from the earliest offset left, or, when that was deleted as well
  // before the partition delivered anything, from halfway to the newest
  // (the skipped offsets are reported too).
  const std::vector<InputMessage>& Poll(size_t max, int timeout_ms);
  // What the last Poll found deleted before it was read.
  const std::vector<LostInput>& lost() const { return lost_; }

  std::vector<int32_t> Assigned() const;
  // Stops fetching these partitions (until they are assigned anew).
  void Pause(const std::vector<int32_t>& partitions);
  // High watermark as last seen by the fetcher (no broker round trip); -1 if unknown.
  int64_t HighWatermark(int32_t partition) const;
  int64_t LowWatermark(int32_t partition) const;
  // The group membership (generation) for committing offsets inside a
  // release transaction; safe to call from another thread.
  std::unique_ptr<RdKafka::ConsumerGroupMetadata> GroupMetadata() const;
  // The group's committed offset of the partition, -1 if none. As a
  // read_committed consumer librdkafka asks for stable offsets (KIP-447):
  // while a transaction that commits offsets for it is open, this waits for
  // that transaction to end. May be called from the rebalance callbacks.
  int64_t CommittedOffset(int32_t partition, int timeout_ms) const;
  void Close();

 private:
  class Rebalancer;
  std::string topic_;
  std::unique_ptr<Rebalancer> rebalancer_;
  std::unique_ptr<RdKafka::KafkaConsumer> consumer_;
  rd_kafka_queue_s* queue_ = nullptr;  // the group's queue, read in batches
  // The last Poll's messages (batch_ views them); destroyed by the next.
  std::vector<rd_kafka_message_s*> held_;
  std::vector<rd_kafka_message_s*> scratch_;
  std::vector<InputMessage> batch_;
  std::vector<LostInput> lost_;
  bool closed_ = false;
  // Partitions resumed after a deleted position that have not delivered a
  // message since, with the offset they resumed at.
  std::map<int32_t, int64_t> resetting_;

  int64_t ResumePosition(int32_t partition, int64_t lo, int64_t hi);
  // A partition's position was deleted (auto.offset.reset=error): counts
  // what is lost and where it resumes; ResumeResetPartitions applies that.
  void NoteReset(const rd_kafka_message_s& error);
  void ResumeResetPartitions();
  void Take(rd_kafka_message_s* m, bool* resume_resets);
  void ReleaseHeld();
};

}  // namespace vanon::kafka

#endif  // VANON_KAFKA_CONSUMER_H_
