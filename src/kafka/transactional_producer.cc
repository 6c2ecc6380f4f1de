#include "vanon/kafka/transactional_producer.h"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafkacpp.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace vanon::kafka {

// What the mock cluster (librdkafka 2.0.2's rdkafka_mock) does and does not
// do with transactions, so nobody reads more into the tests than they show:
// it hands out producer ids and epochs, accepts AddPartitionsToTxn, EndTxn
// and transactional produce, but it writes no commit/abort markers and always
// reports LastStableOffset = high watermark with no aborted transactions. On
// the mock, records of an aborted (or still open) transaction are therefore
// visible to read_committed consumers; only a real broker hides them.

namespace {

using Clock = std::chrono::steady_clock;

int RemainingMs(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

// Takes ownership of err. Anything neither abortable nor retriable (fenced,
// unauthorized, an out-of-order call librdkafka refused) leaves the producer
// in a state the caller cannot repair, so it is reported as fatal.
[[noreturn]] void Throw(std::unique_ptr<RdKafka::Error> err, const std::string& what) {
  std::string msg = what + ": " + err->name() + ": " + err->str();
  if (!err->is_fatal() && err->txn_requires_abort()) throw AbortableKafkaError(msg);
  throw FatalKafkaError(msg);
}

// Runs one of librdkafka's resumable transactional calls, repeating it while
// it reports a retriable error and time is left. Returns the last retriable
// error if time ran out, null on success; throws on any other error.
template <typename Call>
std::unique_ptr<RdKafka::Error> RetryResumable(Call call, int timeout_ms, const std::string& what) {
  auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    std::unique_ptr<RdKafka::Error> err(call(RemainingMs(deadline)));
    if (!err) return nullptr;
    if (!err->is_retriable() || err->is_fatal()) Throw(std::move(err), what);
    if (RemainingMs(deadline) == 0) return err;
    // Some retriable errors (coordinator not available) come back at once.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

// Counts delivery failures of the current transaction only. librdkafka calls
// it from poll()/flush() on the caller's thread, so plain members suffice.
class TransactionalProducer::Reporter : public RdKafka::DeliveryReportCb {
 public:
  void dr_cb(RdKafka::Message& m) override {
    if (m.err() == RdKafka::ERR_NO_ERROR) return;
    if (reinterpret_cast<uintptr_t>(m.msg_opaque()) != generation_) return;
    Fail(m.topic_name() + " [" + std::to_string(m.partition()) + "]: " + m.errstr());
  }

  void Start(uint64_t generation) {
    generation_ = generation;
    failures_ = 0;
    first_error_.clear();
  }

  void Fail(const std::string& error) {
    if (failures_++ == 0) first_error_ = error;
  }

  uint64_t failures() const { return failures_; }
  const std::string& first_error() const { return first_error_; }

 private:
  uint64_t generation_ = 0;
  uint64_t failures_ = 0;
  std::string first_error_;
};

TransactionalProducer::TransactionalProducer(const std::string& bootstrap, const std::string& transactional_id,
                                             const KafkaProperties& user, const KafkaProperties& user_specific,
                                             int timeout_ms, const std::atomic<bool>* stop)
    : reporter_(std::make_unique<Reporter>()) {
  // Only failed records get a delivery report: the reporter ignores the
  // rest, and a release produces hundreds of thousands of records.
  //
  // A release produces its records in one burst, after its epoch closed,
  // and the commit flushes whatever still lingers, so a longer linger costs
  // no latency: it only makes batches larger (up to batch.size, which stays
  // at librdkafka's 1 MB, the broker's default message.max.bytes). At 5 ms a
  // partition's batch held a few hundred records; at 50 ms, fewer produce
  // requests cost vanon's librdkafka threads and the broker less:
  // loadtest/results/release-linger-2026-11-27.md.
  KafkaProperties defaults = {{"transactional.id", transactional_id},
                              {"enable.idempotence", "true"},
                              {"delivery.report.only.error", "true"},
                              {"linger.ms", "50"}};
  std::unique_ptr<RdKafka::Conf> conf;
  try {
    conf = MakeKafkaConf(bootstrap, defaults, user, user_specific);
  } catch (const std::exception& e) {
    throw FatalKafkaError(e.what());
  }
  std::string err;
  if (conf->set("dr_cb", static_cast<RdKafka::DeliveryReportCb*>(reporter_.get()), err) != RdKafka::Conf::CONF_OK) {
    throw FatalKafkaError("transactional producer dr_cb: " + err);
  }
  producer_.reset(RdKafka::Producer::create(conf.get(), err));
  if (!producer_) throw FatalKafkaError("transactional producer: " + err);

  // Slices of at most kStopCheckMs: init_transactions resumes where a timed
  // out call left off, and between slices a stop request is seen.
  constexpr int kStopCheckMs = 200;
  auto left = RetryResumable(
      [&](int ms) -> RdKafka::Error* {
        if (stop != nullptr && stop->load()) {
          throw KafkaStartInterrupted("stopped while init_transactions waited for the broker");
        }
        return producer_->init_transactions(stop != nullptr ? std::min(ms, kStopCheckMs) : ms);
      },
      timeout_ms, "init_transactions");
  if (left) {
    throw FatalKafkaError("init_transactions timed out after " + std::to_string(timeout_ms) + " ms: " + left->str());
  }
}

TransactionalProducer::~TransactionalProducer() {
  // An open transaction would hold back the last stable offset of its
  // partitions (read_committed consumers stall) until the broker times it
  // out, so try to abort it. A crash skips this; the next incarnation's
  // init_transactions then aborts it instead.
  if (in_transaction_) {
    std::unique_ptr<RdKafka::Error> ignored(producer_->abort_transaction(5000));
  }
  for (auto& [name, topic] : topics_) rd_kafka_topic_destroy(topic);
}

void TransactionalProducer::BeginTransaction() {
  if (in_transaction_) throw std::logic_error("BeginTransaction: a transaction is already open");
  std::unique_ptr<RdKafka::Error> err(producer_->begin_transaction());
  if (err) Throw(std::move(err), "begin_transaction");
  reporter_->Start(++generation_);
  in_transaction_ = true;
}

// The C API with a cached topic handle: librdkafka's C++ produce() looks the
// topic up by name and copies the headers through a wrapper on every call,
// which made producing four times slower (loadtest/release/produce_benchmark.cc).
void TransactionalProducer::Produce(const std::string& topic, int32_t partition, std::string_view key,
                                    std::string_view value, const KafkaHeaders& headers, int64_t timestamp_ms) {
  if (!in_transaction_) throw std::logic_error("Produce outside a transaction");
  if (partition < 0) throw std::invalid_argument("Produce: partition must be explicit (>= 0)");
  rd_kafka_t* rk = producer_->c_ptr();
  auto t = topics_.find(topic);
  if (t == topics_.end()) {
    rd_kafka_topic_t* handle = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
    if (handle == nullptr) throw FatalKafkaError("topic " + topic + ": " + rd_kafka_err2str(rd_kafka_last_error()));
    t = topics_.emplace(topic, handle).first;
  }
  void* opaque = reinterpret_cast<void*>(static_cast<uintptr_t>(generation_));
  for (;;) {
    rd_kafka_headers_t* h = nullptr;
    if (!headers.empty()) {
      h = rd_kafka_headers_new(headers.size());
      for (const auto& [name, v] : headers) {
        rd_kafka_header_add(h, name.data(), static_cast<ssize_t>(name.size()), v.data(),
                            static_cast<ssize_t>(v.size()));
      }
    }
    // RD_KAFKA_V_HEADERS must be followed by a non-null list, so the two
    // shapes are spelled out.
    rd_kafka_resp_err_t e =
        h != nullptr ? rd_kafka_producev(rk, RD_KAFKA_V_RKT(t->second), RD_KAFKA_V_PARTITION(partition),
                                         RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                         RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                                         RD_KAFKA_V_KEY(key.data(), key.size()), RD_KAFKA_V_HEADERS(h),
                                         RD_KAFKA_V_TIMESTAMP(timestamp_ms), RD_KAFKA_V_OPAQUE(opaque), RD_KAFKA_V_END)
                     : rd_kafka_producev(rk, RD_KAFKA_V_RKT(t->second), RD_KAFKA_V_PARTITION(partition),
                                         RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                         RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                                         RD_KAFKA_V_KEY(key.data(), key.size()), RD_KAFKA_V_TIMESTAMP(timestamp_ms),
                                         RD_KAFKA_V_OPAQUE(opaque), RD_KAFKA_V_END);
    if (e == RD_KAFKA_RESP_ERR_NO_ERROR) return;  // headers now owned by librdkafka
    if (h != nullptr) rd_kafka_headers_destroy(h);
    if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      // Only failures make delivery reports, so poll() rarely has an event
      // to return early on: a short wait, or it sleeps while the queue drains.
      producer_->poll(2);
      continue;
    }
    std::string msg = "produce to " + topic + " [" + std::to_string(partition) + "]: " + rd_kafka_err2str(e);
    if (e == RD_KAFKA_RESP_ERR__FATAL) throw FatalKafkaError(msg);
    // librdkafka does not fail the transaction for a record it refused
    // before queueing it, so remember it here: a commit must not publish a
    // release with a record missing.
    reporter_->Fail(msg);
    throw AbortableKafkaError(msg);
  }
}

bool TransactionalProducer::Flush(int timeout_ms) { return producer_->flush(timeout_ms) == RdKafka::ERR_NO_ERROR; }

void TransactionalProducer::ThrowIfFailed(const char* what) {
  if (reporter_->failures() == 0) return;
  // A fenced producer also fails its queued records (purged); the fencing,
  // not the purge, is what the caller must act on.
  std::string fatal;
  if (producer_->fatal_error(fatal) != RdKafka::ERR_NO_ERROR) {
    throw FatalKafkaError(std::string(what) + ": " + fatal);
  }
  throw AbortableKafkaError(std::string(what) + ": " + std::to_string(reporter_->failures()) +
                            " record(s) of the transaction failed, first: " + reporter_->first_error());
}

void TransactionalProducer::CommitTransaction(int timeout_ms) {
  if (!in_transaction_) throw std::logic_error("CommitTransaction: no open transaction");
  auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  // commit_transaction flushes too, but checking our own count first is what
  // catches records refused before they were queued.
  ThrowIfFailed("commit_transaction");
  if (producer_->flush(timeout_ms) != RdKafka::ERR_NO_ERROR) {
    throw AbortableKafkaError("commit_transaction: records not delivered within " + std::to_string(timeout_ms) + " ms");
  }
  ThrowIfFailed("commit_transaction");
  std::unique_ptr<RdKafka::Error> left;
  try {
    left = RetryResumable([&](int ms) { return producer_->commit_transaction(ms); }, RemainingMs(deadline),
                          "commit_transaction");
  } catch (const FatalKafkaError&) {
    in_transaction_ = false;  // a dead producer has nothing left to abort
    throw;
  }
  if (left) {
    in_transaction_ = false;
    // The EndTxn may or may not have reached the coordinator: whether the
    // transaction is committed is unknown. A new producer with the same
    // transactional.id finishes it either way; ReadCommitted then tells.
    throw FatalKafkaError("commit_transaction: outcome unknown after " + std::to_string(timeout_ms) +
                          " ms: " + left->str());
  }
  ThrowIfFailed("commit_transaction");  // cannot happen after a successful flush; cheap to check
  in_transaction_ = false;
}

void TransactionalProducer::AbortTransaction(int timeout_ms) {
  if (!in_transaction_) return;
  std::unique_ptr<RdKafka::Error> left;
  try {
    left = RetryResumable([&](int ms) { return producer_->abort_transaction(ms); }, timeout_ms, "abort_transaction");
  } catch (const FatalKafkaError&) {
    in_transaction_ = false;
    throw;
  }
  if (left) {
    in_transaction_ = false;
    throw FatalKafkaError("abort_transaction timed out after " + std::to_string(timeout_ms) + " ms: " + left->str());
  }
  in_transaction_ = false;
}

// A producer's metadata request allows topic auto-creation: on the mock (even
// with allow.auto.create.topics=false, measured) and on a broker with
// auto.create.topics.enable=true, asking about a missing topic creates it
// (the mock gives it 4 partitions) instead of throwing. Create release topics
// up front and keep auto-creation off on the brokers.
int32_t TransactionalProducer::PartitionCount(const std::string& topic, int timeout_ms) {
  std::string err;
  std::unique_ptr<RdKafka::Topic> t(RdKafka::Topic::create(producer_.get(), topic, nullptr, err));
  if (!t) throw std::runtime_error("topic " + topic + ": " + err);
  RdKafka::Metadata* raw = nullptr;
  RdKafka::ErrorCode e = producer_->metadata(false, t.get(), &raw, timeout_ms);
  std::unique_ptr<RdKafka::Metadata> md(raw);
  if (e != RdKafka::ERR_NO_ERROR) {
    throw std::runtime_error("metadata for " + topic + ": " + RdKafka::err2str(e));
  }
  for (const RdKafka::TopicMetadata* tm : *md->topics()) {
    if (tm->topic() != topic) continue;
    if (tm->err() != RdKafka::ERR_NO_ERROR) {
      throw std::runtime_error("metadata for " + topic + ": " + RdKafka::err2str(tm->err()));
    }
    return static_cast<int32_t>(tm->partitions()->size());
  }
  throw std::runtime_error("metadata for " + topic + ": topic not in the response");
}

// librdkafka's ListOffsets carries the client's isolation.level, which
// defaults to read_committed even for a producer: on a real broker the
// "latest" offset returned is the last stable offset, which is below the
// high watermark while some transaction on the partition is open. (The mock
// always answers with the high watermark.)
std::map<int32_t, int64_t> TransactionalProducer::EndOffsets(const std::string& topic,
                                                             const std::set<int32_t>& partitions, int timeout_ms) {
  std::map<int32_t, int64_t> out;
  if (partitions.empty()) return out;
  std::unique_ptr<rd_kafka_topic_partition_list_t, decltype(&rd_kafka_topic_partition_list_destroy)> list(
      rd_kafka_topic_partition_list_new(static_cast<int>(partitions.size())), &rd_kafka_topic_partition_list_destroy);
  // ListOffsets takes a timestamp per partition; -1 (RD_KAFKA_OFFSET_END)
  // asks for the end.
  for (int32_t p : partitions)
    rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), p)->offset = RD_KAFKA_OFFSET_END;
  rd_kafka_resp_err_t e = rd_kafka_offsets_for_times(producer_->c_ptr(), list.get(), timeout_ms);
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR) throw std::runtime_error("end offsets of " + topic + ": " + rd_kafka_err2str(e));
  for (int i = 0; i < list->cnt; ++i) {
    const rd_kafka_topic_partition_t& tp = list->elems[i];
    if (tp.err != RD_KAFKA_RESP_ERR_NO_ERROR || tp.offset < 0) {
      throw std::runtime_error("end offset of " + topic + " [" + std::to_string(tp.partition) +
                               "]: " + (tp.err != RD_KAFKA_RESP_ERR_NO_ERROR ? rd_kafka_err2str(tp.err) : "none"));
    }
    out[tp.partition] = tp.offset;
  }
  return out;
}

namespace {
// The group coordinator's answers to a TxnOffsetCommit from a member of an
// older generation: the group has moved on without it (it was kicked out
// after a session timeout or a too long poll interval, and its partitions
// were given to others). librdkafka makes them abortable errors; retrying
// cannot succeed (the member cannot rejoin while its release is in flight),
// and every retry would produce the transaction's records again.
bool FencedByGroup(RdKafka::ErrorCode code) {
  return code == RdKafka::ERR_ILLEGAL_GENERATION || code == RdKafka::ERR_UNKNOWN_MEMBER_ID ||
         code == RdKafka::ERR_FENCED_INSTANCE_ID;
}
}  // namespace

void TransactionalProducer::SendOffsets(const std::string& topic, const std::map<int32_t, int64_t>& next_offsets,
                                        const RdKafka::ConsumerGroupMetadata& group, int timeout_ms) {
  if (!in_transaction_) throw std::logic_error("SendOffsets: no open transaction");
  if (next_offsets.empty()) return;
  std::vector<RdKafka::TopicPartition*> parts;
  for (const auto& [p, offset] : next_offsets) parts.push_back(RdKafka::TopicPartition::create(topic, p, offset));
  std::unique_ptr<RdKafka::Error> left;
  try {
    left = RetryResumable(
        [&](int ms) {
          RdKafka::Error* e =
              producer_->send_offsets_to_transaction(parts, const_cast<RdKafka::ConsumerGroupMetadata*>(&group), ms);
          if (e != nullptr && FencedByGroup(e->code())) {
            std::unique_ptr<RdKafka::Error> fenced(e);
            throw FencedByGroupError("send_offsets_to_transaction: fenced by the consumer group (" + fenced->name() +
                                     ": " + fenced->str() +
                                     "): this instance no longer owns the partitions; another instance does");
          }
          return e;
        },
        timeout_ms, "send_offsets_to_transaction");
  } catch (...) {
    RdKafka::TopicPartition::destroy(parts);
    throw;
  }
  RdKafka::TopicPartition::destroy(parts);
  if (left) throw AbortableKafkaError("send_offsets_to_transaction: " + left->str());
}

}  // namespace vanon::kafka
