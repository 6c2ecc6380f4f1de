#include "vanon/kafka/consumer.h"

#include <librdkafka/rdkafkacpp.h>

#include <algorithm>
#include <chrono>
#include <map>
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
      ++generation_;
      assigned_.clear();
      start_.clear();
      for (auto* tp : parts) {
        assigned_.push_back(tp->partition());
        start_[tp->partition()] = tp->offset();
      }
    } else {
      std::vector<int32_t> gone;
      for (auto* tp : parts) gone.push_back(tp->partition());
      revoke_(gone);
      c->unassign();
      std::lock_guard<std::mutex> l(mu_);
      ++generation_;
      assigned_.clear();
      start_.clear();
    }
  }

  // Where an assigned partition started (before anything was consumed).
  int64_t start(int32_t partition) const {
    std::lock_guard<std::mutex> l(mu_);
    auto it = start_.find(partition);
    return it == start_.end() ? RdKafka::Topic::OFFSET_BEGINNING : it->second;
  }

  std::vector<int32_t> assigned() const {
    std::lock_guard<std::mutex> l(mu_);
    return assigned_;
  }

  // Changes at every assignment and revocation.
  uint64_t generation() const {
    std::lock_guard<std::mutex> l(mu_);
    return generation_;
  }

 private:
  ResumeFn resume_;
  RevokeFn revoke_;
  mutable std::mutex mu_;
  std::vector<int32_t> assigned_;
  std::map<int32_t, int64_t> start_;
  uint64_t generation_ = 0;
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
                              // A position deleted by retention restarts at the
                              // earliest offset left; Poll counts the skipped
                              // offsets from the gap (NoteOffset). "error" with a
                              // reassignment per error (as before issue 18) purged
                              // every partition's fetched messages at each one:
                              // 16 partitions behind a 5 MB retention reset each
                              // other and consumption stopped for good.
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
  lost_.clear();
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
      NoteOffset(im.partition, im.offset);
      im.key = m->key_pointer() ? std::string_view(static_cast<const char*>(m->key_pointer()), m->key_len())
                                : std::string_view();
      im.value = std::string_view(static_cast<const char*>(m->payload()), m->len());
      batch_.push_back(im);
      held_.push_back(std::move(m));
    } else if (e == RdKafka::ERR__AUTO_OFFSET_RESET) {
      ResumeAfterReset(*m);
    } else if (e == RdKafka::ERR__FATAL) {
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

void Consumer::NoteOffset(int32_t partition, int64_t offset) {
  if (const uint64_t g = rebalancer_->generation(); g != generation_) {
    generation_ = g;
    next_.clear();
  }
  if (partition < 0) return;
  if (static_cast<size_t>(partition) >= next_.size()) next_.resize(static_cast<size_t>(partition) + 1, -1);
  int64_t& want = next_[static_cast<size_t>(partition)];
  if (want < 0) want = rebalancer_->start(partition);  // the resume offset, or negative (a logical one)
  if (want >= 0 && offset > want) CountGap(partition, want, offset);
  want = offset + 1;
}

// A gap in the offsets read is input lost to retention when it starts below
// the log start; above it, it holds transaction markers or compacted-away
// keys. A marker makes a gap of one: then the fetcher's cached low watermark
// decides, to spare a broker round trip per transaction.
void Consumer::CountGap(int32_t partition, int64_t from, int64_t to) {
  int64_t lo = -1, hi = -1;
  if (consumer_->get_watermark_offsets(topic_, partition, &lo, &hi) != RdKafka::ERR_NO_ERROR) lo = -1;
  if (to - from > 1 || lo > from) {
    RdKafka::ErrorCode e = consumer_->query_watermark_offsets(topic_, partition, &lo, &hi, 10000);
    if (e != RdKafka::ERR_NO_ERROR) {
      throw std::runtime_error("partition " + std::to_string(partition) + ": offsets " + std::to_string(from) + ".." +
                               std::to_string(to - 1) + " skipped and its watermarks unreadable: " +
                               RdKafka::err2str(e));
    }
  }
  if (from < lo) lost_.push_back({partition, from, std::min(lo, to)});
}

void Consumer::ResumeAfterReset(const RdKafka::Message& error) {
  const int32_t partition = error.partition();
  int64_t lo = -1, hi = -1;
  RdKafka::ErrorCode e = consumer_->query_watermark_offsets(topic_, partition, &lo, &hi, 10000);
  if (e != RdKafka::ERR_NO_ERROR) {
    throw std::runtime_error("partition " + std::to_string(partition) + ": fetch position out of range (" +
                             error.errstr() + ") and its watermarks unreadable: " + RdKafka::err2str(e));
  }
  // Below the log start: deleted unread. Above the end (a recreated topic):
  // nothing to count; start over from the earliest offset either way.
  const int64_t failed = error.offset();
  if (failed >= 0 && failed < lo) lost_.push_back({partition, failed, lo});
  // A partition whose fetcher stopped on the error cannot be seeked
  // (librdkafka: "Erroneous state"): assign the same partitions again, each
  // at its current position, this one at the earliest offset left.
  std::vector<RdKafka::TopicPartition*> parts;
  e = consumer_->assignment(parts);
  if (e == RdKafka::ERR_NO_ERROR) e = consumer_->position(parts);
  if (e == RdKafka::ERR_NO_ERROR) {
    for (RdKafka::TopicPartition* tp : parts) {
      if (tp->partition() == partition) {
        tp->set_offset(lo);
      } else if (tp->offset() < 0) {
        tp->set_offset(rebalancer_->start(tp->partition()));  // nothing consumed there yet
      }
    }
    e = consumer_->assign(parts);
  }
  RdKafka::TopicPartition::destroy(parts);
  if (e != RdKafka::ERR_NO_ERROR) {
    throw std::runtime_error("partition " + std::to_string(partition) + ": resuming at " + std::to_string(lo) +
                             " after an out-of-range position failed: " + RdKafka::err2str(e));
  }
}

std::vector<int32_t> Consumer::Assigned() const { return rebalancer_->assigned(); }

void Consumer::Pause(const std::vector<int32_t>& partitions) {
  std::vector<RdKafka::TopicPartition*> tps;
  for (int32_t p : partitions) tps.push_back(RdKafka::TopicPartition::create(topic_, p));
  consumer_->pause(tps);  // errors are per partition, and a partition not assigned has nothing to pause
  RdKafka::TopicPartition::destroy(tps);
}

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
