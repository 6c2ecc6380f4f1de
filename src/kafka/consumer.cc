#include "vanon/kafka/consumer.h"

#include <librdkafka/rdkafkacpp.h>

#include <chrono>
#include <mutex>
#include <stdexcept>

namespace vanon {

class Consumer::Rebalancer : public RdKafka::RebalanceCb {
 public:
  Rebalancer(ResumeFn resume, RevokeFn revoke)
      : resume_(std::move(resume)), revoke_(std::move(revoke)) {}

  void rebalance_cb(RdKafka::KafkaConsumer* c, RdKafka::ErrorCode err,
                    std::vector<RdKafka::TopicPartition*>& parts) override {
    if (err == RdKafka::ERR__ASSIGN_PARTITIONS) {
      for (auto* tp : parts) {
        std::optional<int64_t> at = resume_(tp->partition());
        tp->set_offset(at ? *at : RdKafka::Topic::OFFSET_BEGINNING);
      }
      c->assign(parts);
      std::lock_guard<std::mutex> l(mu_);
      assigned_.clear();
      for (auto* tp : parts) assigned_.push_back(tp->partition());
    } else {
      std::vector<int32_t> gone;
      for (auto* tp : parts) gone.push_back(tp->partition());
      revoke_(gone);
      c->unassign();
      std::lock_guard<std::mutex> l(mu_);
      assigned_.clear();
    }
  }

  std::vector<int32_t> assigned() const {
    std::lock_guard<std::mutex> l(mu_);
    return assigned_;
  }

 private:
  ResumeFn resume_;
  RevokeFn revoke_;
  mutable std::mutex mu_;
  std::vector<int32_t> assigned_;
};

Consumer::Consumer(const std::string& bootstrap, const std::string& group_id,
                   const std::string& topic, size_t max_message_bytes, const KafkaProperties& user,
                   const KafkaProperties& user_specific, ResumeFn resume, RevokeFn revoke)
    : topic_(topic), rebalancer_(std::make_unique<Rebalancer>(std::move(resume), std::move(revoke))) {
  // Offsets live in RocksDB with the state they produced; Kafka-side commits
  // would be a second, disagreeing source of truth.
  KafkaProperties defaults = {{"group.id", group_id},
                              {"enable.auto.commit", "false"},
                              {"enable.auto.offset.store", "false"},
                              {"auto.offset.reset", "earliest"},
                              {"enable.partition.eof", "false"},
                              {"isolation.level", "read_committed"},
                              // Oversized input must reach the validator (and the DLQ)
                              // instead of stalling the partition: some brokers, the
                              // mock among them, will not return a message larger
                              // than the fetch size.
                              {"fetch.message.max.bytes", std::to_string(2 * max_message_bytes + 65536)}};
  auto conf = MakeKafkaConf(bootstrap, defaults, user, user_specific);
  std::string err;
  if (conf->set("rebalance_cb", static_cast<RdKafka::RebalanceCb*>(rebalancer_.get()), err) !=
      RdKafka::Conf::CONF_OK) {
    throw std::runtime_error("consumer rebalance_cb: " + err);
  }
  consumer_.reset(RdKafka::KafkaConsumer::create(conf.get(), err));
  if (!consumer_) throw std::runtime_error("consumer: " + err);
  RdKafka::ErrorCode e = consumer_->subscribe({topic});
  if (e != RdKafka::ERR_NO_ERROR) {
    throw std::runtime_error("subscribe " + topic + ": " + RdKafka::err2str(e));
  }
}

Consumer::~Consumer() { Close(); }

void Consumer::Close() {
  if (closed_ || !consumer_) return;
  closed_ = true;
  held_.clear();
  consumer_->close();
}

const std::vector<InputMessage>& Consumer::Poll(size_t max, int timeout_ms) {
  held_.clear();
  batch_.clear();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  int wait = timeout_ms;
  while (batch_.size() < max) {
    std::unique_ptr<RdKafka::Message> m(consumer_->consume(wait));
    RdKafka::ErrorCode e = m->err();
    if (e == RdKafka::ERR__TIMED_OUT) break;
    if (e == RdKafka::ERR_NO_ERROR) {
      InputMessage im;
      im.partition = m->partition();
      im.offset = m->offset();
      im.key = m->key_pointer() ? std::string_view(static_cast<const char*>(m->key_pointer()), m->key_len())
                                : std::string_view();
      im.value = std::string_view(static_cast<const char*>(m->payload()), m->len());
      batch_.push_back(im);
      held_.push_back(std::move(m));
    } else if (m->err() == RdKafka::ERR__FATAL) {
      throw std::runtime_error("consumer fatal error: " + m->errstr());
    }
    // After the first message, take only what is already fetched.
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now()).count();
    wait = batch_.empty() ? static_cast<int>(left > 0 ? left : 0) : 0;
    if (batch_.empty() && left <= 0) break;
  }
  return batch_;
}

std::vector<int32_t> Consumer::Assigned() const { return rebalancer_->assigned(); }

int64_t Consumer::HighWatermark(int32_t partition) const {
  int64_t lo = -1, hi = -1;
  if (consumer_->get_watermark_offsets(topic_, partition, &lo, &hi) != RdKafka::ERR_NO_ERROR) return -1;
  return hi;
}

int64_t Consumer::LowWatermark(int32_t partition) const {
  int64_t lo = -1, hi = -1;
  if (consumer_->get_watermark_offsets(topic_, partition, &lo, &hi) != RdKafka::ERR_NO_ERROR) return -1;
  return lo;
}

std::unique_ptr<RdKafka::ConsumerGroupMetadata> Consumer::GroupMetadata() const {
  return std::unique_ptr<RdKafka::ConsumerGroupMetadata>(consumer_->groupMetadata());
}

int64_t Consumer::CommittedOffset(int32_t partition, int timeout_ms) const {
  std::vector<RdKafka::TopicPartition*> parts = {RdKafka::TopicPartition::create(topic_, partition)};
  RdKafka::ErrorCode e = consumer_->committed(parts, timeout_ms);
  const RdKafka::ErrorCode pe = parts[0]->err();
  const int64_t offset = parts[0]->offset();
  RdKafka::TopicPartition::destroy(parts);
  if (e != RdKafka::ERR_NO_ERROR || pe != RdKafka::ERR_NO_ERROR) {
    throw std::runtime_error("committed offset of partition " + std::to_string(partition) + ": " +
                             RdKafka::err2str(e != RdKafka::ERR_NO_ERROR ? e : pe));
  }
  return offset >= 0 ? offset : -1;
}

}  // namespace vanon
