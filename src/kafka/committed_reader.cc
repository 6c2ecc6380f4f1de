#include "vanon/kafka/committed_reader.h"

#include <librdkafka/rdkafkacpp.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <vector>

#include <unistd.h>

namespace vanon::kafka {

// On librdkafka's mock cluster this cannot tell committed from aborted
// records: the mock writes no transaction markers and reports the last stable
// offset as the high watermark, so every record produced is returned. See
// transactional_producer.cc.

namespace {

using Clock = std::chrono::steady_clock;

// A group.id is required by KafkaConsumer even though nothing is subscribed
// or committed; a unique one keeps concurrent readers from ever meeting in a
// group.
std::string ThrowawayGroupId() {
  static std::atomic<uint64_t> counter{0};
  return "vanon-read-committed-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
}

// Errors librdkafka reports while it keeps retrying on its own.
bool IsTransient(RdKafka::ErrorCode e) {
  return e == RdKafka::ERR__TIMED_OUT || e == RdKafka::ERR__TRANSPORT || e == RdKafka::ERR__ALL_BROKERS_DOWN ||
         e == RdKafka::ERR__RESOLVE;
}

std::string Where(const std::string& topic, int32_t partition) {
  return topic + " [" + std::to_string(partition) + "]";
}

}  // namespace

struct CommittedReader::Rep {
  std::unique_ptr<RdKafka::KafkaConsumer> consumer;
  std::string topic;
  int32_t partition = 0;
  ~Rep() {
    if (consumer) consumer->close();
  }
};

CommittedReader::CommittedReader(const std::string& bootstrap, const KafkaProperties& user,
                                 const KafkaProperties& user_specific, const std::string& topic, int32_t partition)
    : rep_(std::make_unique<Rep>()) {
  // The settings this reader's promise rests on override the user's maps.
  KafkaProperties forced = user_specific;
  forced["group.id"] = ThrowawayGroupId();
  forced["enable.auto.commit"] = "false";
  forced["isolation.level"] = "read_committed";
  forced["enable.partition.eof"] = "true";
  KafkaProperties defaults = {{"auto.offset.reset", "earliest"}};
  auto conf = MakeKafkaConf(bootstrap, defaults, user, forced);
  std::string err;
  rep_->consumer.reset(RdKafka::KafkaConsumer::create(conf.get(), err));
  if (!rep_->consumer) throw std::runtime_error("read_committed consumer: " + err);
  rep_->topic = topic;
  rep_->partition = partition;
}

CommittedReader::~CommittedReader() = default;

void CommittedReader::Read(int64_t from_offset, const std::function<bool(const CommittedRecord&)>& fn, int timeout_ms) {
  auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  auto remaining = [&] {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left > 0 ? static_cast<int>(left) : 0;
  };
  RdKafka::KafkaConsumer* consumer = rep_->consumer.get();
  const std::string& topic = rep_->topic;
  const int32_t partition = rep_->partition;

  // With isolation.level = read_committed the broker answers "latest" with
  // the last stable offset: nothing at or past it is committed yet.
  int64_t low = -1, end = -1;
  RdKafka::ErrorCode e = consumer->query_watermark_offsets(topic, partition, &low, &end, remaining());
  if (e != RdKafka::ERR_NO_ERROR) {
    throw std::runtime_error("watermarks of " + Where(topic, partition) + ": " + RdKafka::err2str(e));
  }
  int64_t start = from_offset > low ? from_offset : low;
  if (start >= end) return;

  // Assigning again is this reader's seek: a local operation that drops
  // what was fetched past the previous read, over the same connections.
  std::unique_ptr<RdKafka::TopicPartition> tp(RdKafka::TopicPartition::create(topic, partition, start));
  std::vector<RdKafka::TopicPartition*> assignment = {tp.get()};
  e = consumer->assign(assignment);
  if (e != RdKafka::ERR_NO_ERROR) {
    throw std::runtime_error("assign " + Where(topic, partition) + ": " + RdKafka::err2str(e));
  }

  // Stop at `end`, or at partition EOF: the offsets just below the end may be
  // transaction markers or aborted records that are never delivered.
  for (;;) {
    int wait = remaining();
    if (wait == 0) {
      throw std::runtime_error("read_committed " + Where(topic, partition) + ": timed out after " +
                               std::to_string(timeout_ms) + " ms");
    }
    std::unique_ptr<RdKafka::Message> m(consumer->consume(wait));
    e = m->err();
    if (e == RdKafka::ERR_NO_ERROR) {
      if (m->offset() < start) continue;  // fetched for an earlier read
      if (m->offset() >= end) return;
      CommittedRecord r;
      r.offset = m->offset();
      r.end = end;
      r.key = m->key_pointer() ? std::string_view(static_cast<const char*>(m->key_pointer()), m->key_len())
                               : std::string_view();
      r.value = std::string_view(static_cast<const char*>(m->payload()), m->len());
      if (!fn(r) || r.offset + 1 >= end) return;
    } else if (e == RdKafka::ERR__PARTITION_EOF) {
      return;
    } else if (!IsTransient(e)) {
      throw std::runtime_error("read_committed " + Where(topic, partition) + ": " + m->errstr());
    }
  }
}

void ReadCommitted(const std::string& bootstrap, const KafkaProperties& user, const KafkaProperties& user_specific,
                   const std::string& topic, int32_t partition, int64_t from_offset,
                   const std::function<bool(const CommittedRecord&)>& fn, int timeout_ms) {
  CommittedReader reader(bootstrap, user, user_specific, topic, partition);
  reader.Read(from_offset, fn, timeout_ms);
}

}  // namespace vanon::kafka
