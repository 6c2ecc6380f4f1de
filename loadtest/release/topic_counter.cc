#include "topic_counter.h"

#include <librdkafka/rdkafkacpp.h>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <future>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace vanon::loadtest {

namespace {
int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}
}  // namespace

struct TopicCounter::Rep {
  std::unique_ptr<RdKafka::KafkaConsumer> consumer;
  std::thread thread;
  std::atomic<bool> stop{false};
  mutable std::mutex mu;
  std::chrono::steady_clock::time_point first{}, last{};
  std::string error;
};

namespace {

// The consumer is made on the reader thread, after its nice value is set,
// so that the threads librdkafka starts for it inherit that value.
std::unique_ptr<RdKafka::KafkaConsumer> MakeCounterConsumer(const std::string& bootstrap, const std::string& topic,
                                                            int partitions) {
  std::string err;
  std::unique_ptr<RdKafka::Conf> conf(RdKafka::Conf::create(RdKafka::Conf::CONF_GLOBAL));
  // No group offsets are used (assign, not subscribe), but KafkaConsumer
  // insists on a group id. fetch.wait.max.ms: the mock cluster holds a fetch
  // that finds no data for the whole wait, even when records arrive meanwhile
  // (a broker answers as soon as they do), so at the default 500 ms every
  // release summary was seen 0-500 ms late and the measured latency carried
  // that on top of vanon's own.
  const std::pair<const char*, std::string> settings[] = {
      {"bootstrap.servers", bootstrap},  {"group.id", "bench-counter-" + topic},
      {"enable.auto.commit", "false"},   {"isolation.level", "read_committed"},
      {"auto.offset.reset", "earliest"}, {"fetch.max.bytes", "52428800"},
      {"fetch.wait.max.ms", "10"},       {"log_level", "3"}};
  for (const auto& [k, v] : settings) {
    if (conf->set(k, v, err) != RdKafka::Conf::CONF_OK) throw std::runtime_error("topic counter: " + err);
  }
  std::unique_ptr<RdKafka::KafkaConsumer> consumer(RdKafka::KafkaConsumer::create(conf.get(), err));
  if (!consumer) throw std::runtime_error("topic counter: " + err);
  std::vector<RdKafka::TopicPartition*> parts;
  for (int p = 0; p < partitions; ++p) {
    parts.push_back(RdKafka::TopicPartition::create(topic, p, RdKafka::Topic::OFFSET_BEGINNING));
  }
  RdKafka::ErrorCode e = consumer->assign(parts);
  RdKafka::TopicPartition::destroy(parts);
  if (e != RdKafka::ERR_NO_ERROR) throw std::runtime_error("topic counter: assign: " + RdKafka::err2str(e));
  return consumer;
}

}  // namespace

TopicCounter::TopicCounter(const std::string& bootstrap, const std::string& topic, int partitions, RecordFn on_record,
                           int nice)
    : rep_(std::make_unique<Rep>()) {
  std::promise<void> made;
  std::future<void> made_result = made.get_future();
  rep_->thread = std::thread([this, bootstrap, topic, partitions, on_record, nice, &made] {
    try {
      // On Linux a thread id names one thread for setpriority: only this
      // thread, and what it starts from now on, runs at the lower priority.
      if (nice > 0 && setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), nice) != 0) {
        throw std::runtime_error(std::string("topic counter: setpriority: ") + std::strerror(errno));
      }
      rep_->consumer = MakeCounterConsumer(bootstrap, topic, partitions);
      made.set_value();
    } catch (...) {
      made.set_exception(std::current_exception());
      return;
    }
    Read(partitions, on_record);
  });
  try {
    made_result.get();
  } catch (...) {
    rep_->thread.join();
    throw;
  }
}

void TopicCounter::Read(int partitions, const RecordFn& on_record) {
  std::vector<int64_t> next(static_cast<size_t>(partitions), 0);
  while (!rep_->stop.load()) {
    std::unique_ptr<RdKafka::Message> m(rep_->consumer->consume(100));
    if (m->err() == RdKafka::ERR__TIMED_OUT || m->err() == RdKafka::ERR__PARTITION_EOF) continue;
    if (m->err() != RdKafka::ERR_NO_ERROR) {
      // Offset-out-of-range is reset by librdkafka and shows as a gap.
      if (m->err() == RdKafka::ERR_OFFSET_OUT_OF_RANGE) continue;
      std::lock_guard<std::mutex> l(rep_->mu);
      rep_->error = m->errstr();
      continue;  // transient errors are retried by librdkafka
    }
    const auto now = std::chrono::steady_clock::now();
    int64_t& expected = next[static_cast<size_t>(m->partition())];
    if (m->offset() > expected) truncated_.fetch_add(static_cast<uint64_t>(m->offset() - expected));
    expected = m->offset() + 1;
    read_.fetch_add(1, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> l(rep_->mu);
      if (rep_->first == std::chrono::steady_clock::time_point{}) rep_->first = now;
      rep_->last = now;
    }
    if (on_record) {
      on_record(m->partition(), std::string_view(static_cast<const char*>(m->payload()), m->len()), WallMs());
    }
  }
}

TopicCounter::~TopicCounter() {
  rep_->stop = true;
  rep_->thread.join();
  rep_->consumer->close();
}

std::chrono::steady_clock::time_point TopicCounter::first_at() const {
  std::lock_guard<std::mutex> l(rep_->mu);
  return rep_->first;
}

std::chrono::steady_clock::time_point TopicCounter::last_at() const {
  std::lock_guard<std::mutex> l(rep_->mu);
  return rep_->last;
}

std::string TopicCounter::error() const {
  std::lock_guard<std::mutex> l(rep_->mu);
  return rep_->error;
}

int64_t SumHighWatermarks(const std::string& bootstrap, const std::string& topic, int partitions) {
  std::string err;
  std::unique_ptr<RdKafka::Conf> conf(RdKafka::Conf::create(RdKafka::Conf::CONF_GLOBAL));
  conf->set("bootstrap.servers", bootstrap, err);
  conf->set("log_level", "3", err);
  std::unique_ptr<RdKafka::Producer> p(RdKafka::Producer::create(conf.get(), err));
  if (!p) throw std::runtime_error("watermarks: " + err);
  int64_t sum = 0;
  for (int i = 0; i < partitions; ++i) {
    int64_t lo = -1, hi = -1;
    if (p->query_watermark_offsets(topic, i, &lo, &hi, 10000) != RdKafka::ERR_NO_ERROR) {
      throw std::runtime_error("cannot read watermarks of " + topic);
    }
    sum += hi;
  }
  return sum;
}

}  // namespace vanon::loadtest
