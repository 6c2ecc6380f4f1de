// BatchParser parses a poll batch's messages while the consuming thread
// routes and buffers them in order. Parsing is most of ingestion's work and
// depends on nothing but the message, so a large batch is cut into chunks
// that a worker thread and the consuming thread both take, in order, from
// one counter: the worker parses ahead while the consuming thread routes,
// and the consuming thread parses the next chunk itself when the worker has
// not taken it. The consuming thread, not the machine, was what bounded how
// fast a pod catches up on a backlog. Batches under split_at are parsed on
// the calling thread; the worker starts with the first larger batch.
//
// Each thread has its own parser and payload transformer, so the results are
// those of one parser over the whole batch.
#ifndef VANON_SRC_SERVICE_INGEST_BATCH_PARSER_H_
#define VANON_SRC_SERVICE_INGEST_BATCH_PARSER_H_

#include <atomic>
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
  // config's payload section. split_at: the smallest batch shared with the
  // worker.
  BatchParser(const std::function<std::unique_ptr<ingest::EventParser>()>& make_parser,
              const config::PayloadConfig& payload, size_t split_at);
  ~BatchParser();
  BatchParser(const BatchParser&) = delete;
  BatchParser& operator=(const BatchParser&) = delete;

  // Parsing `batch`, from construction to destruction: the batch must
  // outlive it, and one batch is parsed at a time.
  class Batch {
   public:
    Batch(BatchParser* parser, const std::vector<kafka::InputMessage>& batch, int64_t now_ms);
    ~Batch() { End(); }
    Batch(const Batch&) = delete;
    Batch& operator=(const Batch&) = delete;
    // Message i's result, valid until the next batch; waits for it or
    // parses it. Rethrows what a parser threw.
    Result& Get(size_t i);
    // Returns once the worker no longer reads the batch (and its parser's
    // counts may be read); idempotent.
    void End();

   private:
    BatchParser* parser_;
    bool ended_ = false;
  };

  // Both threads' payload transformers together.
  release::PayloadStats stats() const;
  // The calling thread's transformer (for events restored from state).
  release::PayloadTransformer* payload() { return lanes_[0].payload.get(); }

 private:
  struct Lane {
    std::unique_ptr<release::PayloadTransformer> payload;
    std::unique_ptr<ingest::EventParser> parser;
  };
  // A chunk's state; 32 bits, so that waiting on it is a futex on the word itself.
  enum : uint32_t { kPending = 0, kParsed = 1, kFailed = 2 };

  void Begin(const std::vector<kafka::InputMessage>& batch, int64_t now_ms);
  Result& Get(size_t i);
  void End();
  void ParseRange(Lane& lane, size_t begin, size_t end);
  // Parses chunk c on `lane` and publishes it.
  void ParseChunk(Lane& lane, size_t c);
  void WorkerLoop();

  size_t split_at_;
  Lane lanes_[2];
  std::vector<Result> results_;
  const std::vector<kafka::InputMessage>* batch_ = nullptr;
  int64_t now_ms_ = 0;

  // A shared batch's chunks: taken from next_chunk_ by either thread, each
  // published by its state (kPending until parsed).
  bool shared_ = false;
  size_t chunk_count_ = 0;
  std::atomic<size_t> next_chunk_{0};
  std::unique_ptr<std::atomic<uint32_t>[]> chunk_state_;
  size_t chunk_capacity_ = 0;
  std::exception_ptr worker_error_;  // written before a kFailed state

  // Handing a batch to the worker and learning it is done with it.
  std::mutex mu_;
  std::condition_variable cv_;
  bool job_pending_ = false, job_done_ = true, stopping_ = false;
  std::thread worker_;  // started with the first shared batch
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_INGEST_BATCH_PARSER_H_
