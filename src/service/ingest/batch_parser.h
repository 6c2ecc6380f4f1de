// BatchParser parses a poll batch's messages before the consuming thread
// routes and buffers them in order. Parsing is most of ingestion's work and
// depends on nothing but the message, so a large batch is split in two and
// its second half parsed on a worker thread meanwhile: the consuming thread,
// not the machine, was what bounded how fast a pod catches up on a backlog.
// Batches under split_at stay on the calling thread; the worker starts with
// the first batch that is split.
//
// Each half has its own parser and payload transformer, so the results are
// those of one parser over the whole batch, in the same order.
#ifndef VANON_SRC_SERVICE_INGEST_BATCH_PARSER_H_
#define VANON_SRC_SERVICE_INGEST_BATCH_PARSER_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "vanon/ingest/event_parser.h"
#include "vanon/config.h"
#include "vanon/kafka/consumer.h"
#include "vanon/release/payload_transformer.h"

namespace vanon::service {

class BatchParser {
 public:
  struct Result {
    bool ok = false;
    ingest::ParsedEvent event;    // when ok
    ingest::Rejection rejection;  // when not
  };

  // make_parser returns a parser configured as ingestion's; payload is the
  // config's payload section. split_at: the smallest batch split in two.
  BatchParser(const std::function<std::unique_ptr<ingest::EventParser>()>& make_parser,
              const config::PayloadConfig& payload, size_t split_at);
  ~BatchParser();
  BatchParser(const BatchParser&) = delete;
  BatchParser& operator=(const BatchParser&) = delete;

  // Parses every message of `batch`; result(i) is message i's until the
  // next call. Rethrows what a parser threw.
  void Parse(const std::vector<kafka::InputMessage>& batch, int64_t now_ms);
  Result& result(size_t i) { return results_[i]; }

  // Both halves' payload transformers together.
  release::PayloadStats stats() const;
  // The calling thread's transformer (for events restored from state).
  release::PayloadTransformer* payload() { return lanes_[0].payload.get(); }

 private:
  struct Lane {
    std::unique_ptr<release::PayloadTransformer> payload;
    std::unique_ptr<ingest::EventParser> parser;
  };
  void ParseRange(Lane& lane, size_t begin, size_t end);
  void WorkerLoop();

  size_t split_at_;
  Lane lanes_[2];
  std::vector<Result> results_;
  // The batch being parsed; the worker's job is its second half.
  const std::vector<kafka::InputMessage>* job_batch_ = nullptr;
  int64_t job_now_ms_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  bool job_pending_ = false, job_done_ = false, stopping_ = false;
  std::exception_ptr job_error_;
  std::thread worker_;  // started with the first split batch
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_INGEST_BATCH_PARSER_H_
