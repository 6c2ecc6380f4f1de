#include "vanon/kafka/consumer.h"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafkacpp.h>

#include <chrono>
#include <map>
#include <mutex>
#include <stdexcept>

namespace vanon::kafka {

class Consumer::Rebalancer : public RdKafka::RebalanceCb {
 public:
  Rebalancer(ResumeFn resume, RevokeFn revoke) : resume_(std::move(resume)), revoke_(std::move(revoke)) {}

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

 private:
  ResumeFn resume_;
  RevokeFn revoke_;
  mutable std::mutex mu_;
  std::vector<int32_t> assigned_;
  std::map<int32_t, int64_t> start_;
};

Consumer::Consumer(const std::string& bootstrap, const std::string& group_id, const std::string& topic,
                   size_t max_message_bytes, const KafkaProperties& user, const KafkaProperties& user_specific,
                   ResumeFn resume, RevokeFn revoke)
    : topic_(topic), rebalancer_(std::make_unique<Rebalancer>(std::move(resume), std::move(revoke))) {
  // Nothing commits offsets on its own: with the changelog on, a release's
  // transaction commits them (ChangelogWriter::CommitOffsets, so they move
  // with the state they produced); local state holds them either way.
  KafkaProperties defaults = {{"group.id", group_id},
                              {"enable.auto.commit", "false"},
                              {"enable.auto.offset.store", "false"},
                              // "error", not "earliest": a position deleted by
                              // retention must be counted as lost, not skipped
                              // silently (Poll counts it, then seeks).
                              {"auto.offset.reset", "error"},
                              {"enable.partition.eof", "false"},
                              {"isolation.level", "read_committed"},
                              // Oversized input must reach the validator (and the DLQ)
                              // instead of stalling the partition: some brokers, the
                              // mock among them, will not return a message larger
                              // than the fetch size.
                              {"fetch.message.max.bytes", std::to_string(2 * max_message_bytes + 65536)},
                              // The prefetch limits apply to the one queue all
                              // assigned partitions feed (not to each, as for
                              // kcat's simple consumer). At the defaults (100,000
                              // messages, 64 MB: under a second at 100,000
                              // events/s) a consumer catching up filled it, and
                              // librdkafka 2.0 then backs the fetch off for
                              // fetch.error.backoff.ms (500 ms): idle gaps in
                              // which neither fetching nor processing ran.
                              // Up to 256 MB of prefetched input
                              // instead, and the Java client's 100 ms backoff.
                              {"queued.min.messages", "1000000"},
                              {"queued.max.messages.kbytes", "262144"},
                              {"fetch.error.backoff.ms", "100"}};
  auto conf = MakeKafkaConf(bootstrap, defaults, user, user_specific);
  std::string err;
  if (conf->set("rebalance_cb", static_cast<RdKafka::RebalanceCb*>(rebalancer_.get()), err) != RdKafka::Conf::CONF_OK) {
    throw std::runtime_error("consumer rebalance_cb: " + err);
  }
  consumer_.reset(RdKafka::KafkaConsumer::create(conf.get(), err));
  if (!consumer_) throw std::runtime_error("consumer: " + err);
  RdKafka::ErrorCode e = consumer_->subscribe({topic});
  if (e != RdKafka::ERR_NO_ERROR) {
    throw std::runtime_error("subscribe " + topic + ": " + RdKafka::err2str(e));
  }
  queue_ = rd_kafka_queue_get_consumer(consumer_->c_ptr());
  if (queue_ == nullptr) throw std::runtime_error("consumer: no group queue");
}

Consumer::~Consumer() {
  Close();
  if (queue_ != nullptr) rd_kafka_queue_destroy(queue_);
}

void Consumer::Close() {
  if (closed_ || !consumer_) return;
  closed_ = true;
  ReleaseHeld();
  consumer_->close();
}

void Consumer::ReleaseHeld() {
  for (rd_kafka_message_t* m : held_) rd_kafka_message_destroy(m);
  held_.clear();
}

// librdkafka's batch call on the group's queue, as consume() serves it
// (rebalance callbacks, offset bookkeeping), but without consume()'s
// per-message clock reads, poll bookkeeping and C++ wrapper: those were a
// seventh of the consuming thread's samples (perf of bench_ingest_e2e).
// It waits for a full batch or the timeout, so only the first message is
// waited for; the rest is what has already arrived.
const std::vector<InputMessage>& Consumer::Poll(size_t max, int timeout_ms) {
  ReleaseHeld();
  batch_.clear();
  lost_.clear();
  if (max == 0) return batch_;
  std::vector<rd_kafka_message_t*>& got = scratch_;
  got.resize(max);
  ssize_t n = rd_kafka_consume_batch_queue(queue_, timeout_ms, got.data(), 1);
  if (n > 0 && max > 1) {
    const ssize_t more = rd_kafka_consume_batch_queue(queue_, 0, got.data() + 1, max - 1);
    if (more > 0) n += more;
  }
  if (n < 0) throw std::runtime_error(std::string("consumer: ") + rd_kafka_err2str(rd_kafka_last_error()));
  held_.assign(got.begin(), got.begin() + n);
  bool resume_resets = false;
  for (rd_kafka_message_t* m : held_) Take(m, &resume_resets);
  if (resume_resets) ResumeResetPartitions();
  return batch_;
}

void Consumer::Take(rd_kafka_message_t* m, bool* resume_resets) {
  const rd_kafka_resp_err_t e = m->err;
  if (e == RD_KAFKA_RESP_ERR_NO_ERROR) {
    InputMessage im;
    im.partition = m->partition;
    im.offset = m->offset;
    im.key = m->key != nullptr ? std::string_view(static_cast<const char*>(m->key), m->key_len) : std::string_view();
    im.value = std::string_view(static_cast<const char*>(m->payload), m->len);
    batch_.push_back(im);
    if (!resetting_.empty()) resetting_.erase(im.partition);  // its resume position held
  } else if (e == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET) {
    NoteReset(*m);
    *resume_resets = true;
  } else if (e == RD_KAFKA_RESP_ERR__FATAL) {
    throw std::runtime_error(std::string("consumer fatal error: ") + rd_kafka_message_errstr(m));
  }
}

// The first time a partition's position is deleted, it resumes at the
// oldest offset left. If that one is deleted too before a message of the
// partition arrives, retention deletes faster than the fetch reaches the
// oldest offset (a fetch round trip, under load, can take longer than the
// broker keeps the log's head): resuming at the oldest offset again failed
// the same way every second and consumption never restarted (the
// mock broker keeps about 5 MB per partition). Then it resumes halfway
// between the oldest and the newest offset, so that the next fetch lands.
int64_t Consumer::ResumePosition(int32_t partition, int64_t lo, int64_t hi) {
  const bool again = resetting_.count(partition) > 0;
  const int64_t resume = !again || hi <= lo ? lo : lo + (hi - lo) / 2;
  resetting_[partition] = resume;
  return resume;
}

void Consumer::NoteReset(const rd_kafka_message_t& error) {
  const int32_t partition = error.partition;
  int64_t lo = -1, hi = -1;
  RdKafka::ErrorCode e = consumer_->query_watermark_offsets(topic_, partition, &lo, &hi, 10000);
  if (e != RdKafka::ERR_NO_ERROR) {
    throw std::runtime_error("partition " + std::to_string(partition) + ": fetch position out of range (" +
                             rd_kafka_message_errstr(&error) +
                             ") and its watermarks unreadable: " + RdKafka::err2str(e));
  }
  // Below the log start: deleted unread. Above the end (a recreated topic):
  // nothing to count; start over from the earliest offset either way.
  const int64_t failed = error.offset;
  const int64_t resume = ResumePosition(partition, lo, hi);
  if (failed >= 0 && failed < resume) lost_.push_back({partition, failed, resume});
}

// A partition whose fetcher stopped on the error cannot be seeked
// (librdkafka: "Erroneous state"): assign the same partitions again, each at
// its current position, the ones reset at their resume position. Once per
// Poll, for all the partitions its batch found reset: one batch can hold the
// errors of many partitions, and assigning everything again per error, many
// times in a row, is what a restart after a long outage did.
void Consumer::ResumeResetPartitions() {
  std::vector<RdKafka::TopicPartition*> parts;
  RdKafka::ErrorCode e = consumer_->assignment(parts);
  if (e == RdKafka::ERR_NO_ERROR) e = consumer_->position(parts);
  if (e == RdKafka::ERR_NO_ERROR) {
    for (RdKafka::TopicPartition* tp : parts) {
      if (auto r = resetting_.find(tp->partition()); r != resetting_.end()) {
        // Reset and nothing consumed since (in this batch or an earlier
        // one): position() still names the deleted offset, and assigning it
        // again made two partitions undo each other's resets forever.
        tp->set_offset(r->second);
      } else if (tp->offset() < 0) {
        tp->set_offset(rebalancer_->start(tp->partition()));  // nothing consumed there yet
      }
    }
    e = consumer_->assign(parts);
  }
  RdKafka::TopicPartition::destroy(parts);
  if (e != RdKafka::ERR_NO_ERROR) {
    throw std::runtime_error("resuming partitions after an out-of-range position failed: " + RdKafka::err2str(e));
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

}  // namespace vanon::kafka
