#include "vanon/kafka/topic_tail.h"

#include <librdkafka/rdkafkacpp.h>

#include <atomic>
#include <stdexcept>

#include <unistd.h>

namespace vanon::kafka {

namespace {

// KafkaConsumer needs a group.id even when nothing subscribes or commits; a
// unique one keeps tails from ever meeting in a group.
std::string ThrowawayGroupId() {
  static std::atomic<uint64_t> counter{0};
  return "vanon-tail-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
}

std::unique_ptr<RdKafka::KafkaConsumer> MakeConsumer(const std::string& bootstrap, const KafkaProperties& user) {
  KafkaProperties forced = {{"group.id", ThrowawayGroupId()},
                            {"enable.auto.commit", "false"},
                            {"isolation.level", "read_committed"},
                            {"enable.partition.eof", "false"}};
  auto conf = MakeKafkaConf(bootstrap, {{"fetch.wait.max.ms", "100"}}, user, forced);
  std::string err;
  std::unique_ptr<RdKafka::KafkaConsumer> c(RdKafka::KafkaConsumer::create(conf.get(), err));
  if (!c) throw std::runtime_error("tail consumer: " + err);
  return c;
}

int32_t PartitionsOf(RdKafka::KafkaConsumer* c, const std::string& topic, int timeout_ms) {
  RdKafka::Metadata* raw = nullptr;
  RdKafka::ErrorCode e = c->metadata(true, nullptr, &raw, timeout_ms);
  std::unique_ptr<RdKafka::Metadata> md(raw);
  if (e != RdKafka::ERR_NO_ERROR) throw std::runtime_error("listing topics: " + RdKafka::err2str(e));
  for (const RdKafka::TopicMetadata* t : *md->topics()) {
    if (t->topic() == topic && t->err() == RdKafka::ERR_NO_ERROR) return static_cast<int32_t>(t->partitions()->size());
  }
  return 0;
}

// Errors librdkafka reports while it keeps retrying on its own.
bool IsTransient(RdKafka::ErrorCode e) {
  return e == RdKafka::ERR__TIMED_OUT || e == RdKafka::ERR__TRANSPORT || e == RdKafka::ERR__ALL_BROKERS_DOWN ||
         e == RdKafka::ERR__RESOLVE || e == RdKafka::ERR__PARTITION_EOF;
}

}  // namespace

int32_t TopicPartitionCount(const std::string& bootstrap, const KafkaProperties& user, const std::string& topic,
                            int timeout_ms) {
  std::unique_ptr<RdKafka::KafkaConsumer> c = MakeConsumer(bootstrap, user);
  const int32_t n = PartitionsOf(c.get(), topic, timeout_ms);
  c->close();
  return n;
}

struct TopicTail::Rep {
  std::unique_ptr<RdKafka::KafkaConsumer> consumer;
  int32_t partitions = 0;
  std::vector<std::unique_ptr<RdKafka::Message>> held;
  std::vector<TailRecord> batch;
  ~Rep() {
    if (consumer) consumer->close();
  }
};

TopicTail::TopicTail(const std::string& bootstrap, const KafkaProperties& user, const std::string& topic, Start start,
                     int timeout_ms)
    : rep_(std::make_unique<Rep>()) {
  rep_->consumer = MakeConsumer(bootstrap, user);
  rep_->partitions = PartitionsOf(rep_->consumer.get(), topic, timeout_ms);
  if (rep_->partitions == 0) throw std::runtime_error("topic " + topic + " is not in the cluster's metadata");
  std::vector<std::unique_ptr<RdKafka::TopicPartition>> owned;
  std::vector<RdKafka::TopicPartition*> assignment;
  for (int32_t p = 0; p < rep_->partitions; ++p) {
    // The logical end: a read_committed consumer starts at the last stable offset.
    const int64_t at = start == Start::kBeginning ? RdKafka::Topic::OFFSET_BEGINNING : RdKafka::Topic::OFFSET_END;
    owned.emplace_back(RdKafka::TopicPartition::create(topic, p, at));
    assignment.push_back(owned.back().get());
  }
  RdKafka::ErrorCode e = rep_->consumer->assign(assignment);
  if (e != RdKafka::ERR_NO_ERROR) throw std::runtime_error("assign " + topic + ": " + RdKafka::err2str(e));
}

TopicTail::~TopicTail() = default;

int32_t TopicTail::partitions() const { return rep_->partitions; }

const std::vector<TailRecord>& TopicTail::Poll(size_t max, int timeout_ms) {
  rep_->held.clear();
  rep_->batch.clear();
  int wait = timeout_ms;
  while (rep_->batch.size() < max) {
    std::unique_ptr<RdKafka::Message> m(rep_->consumer->consume(wait));
    const RdKafka::ErrorCode e = m->err();
    if (e == RdKafka::ERR_NO_ERROR) {
      TailRecord r;
      r.partition = m->partition();
      r.offset = m->offset();
      r.key = m->key_pointer() ? std::string_view(static_cast<const char*>(m->key_pointer()), m->key_len())
                               : std::string_view();
      r.value = std::string_view(static_cast<const char*>(m->payload()), m->len());
      rep_->batch.push_back(r);
      rep_->held.push_back(std::move(m));
      wait = 0;  // take what is already there, then return
    } else if (IsTransient(e)) {
      break;  // the caller polls again
    } else {
      throw std::runtime_error("tail: " + m->errstr());
    }
  }
  return rep_->batch;
}

}  // namespace vanon::kafka
