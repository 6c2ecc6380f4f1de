#include "service/ingest/batch_parser.h"

#include <pthread.h>

#include <algorithm>

namespace vanon::service {

namespace {
// Messages per chunk: small enough that the two threads finish a batch
// close together and that waiting for the worker's chunk is short (about
// 0.2 ms), large enough that taking one is nothing beside parsing it.
constexpr size_t kChunk = 128;
}  // namespace

BatchParser::BatchParser(const std::function<std::unique_ptr<ingest::EventParser>()>& make_parser,
                         const config::PayloadConfig& payload, size_t split_at)
    : split_at_(split_at) {
  for (Lane& lane : lanes_) {
    lane.payload = std::make_unique<release::PayloadTransformer>(payload);
    lane.parser = make_parser();
    lane.parser->SetPayloadSink(lane.payload.get());
  }
}

BatchParser::~BatchParser() {
  if (!worker_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

BatchParser::Batch::Batch(BatchParser* parser, const std::vector<kafka::InputMessage>& batch, int64_t now_ms)
    : parser_(parser) {
  parser_->Begin(batch, now_ms);
}

void BatchParser::Batch::End() {
  if (ended_) return;
  ended_ = true;
  parser_->End();
}

BatchParser::Result& BatchParser::Batch::Get(size_t i) { return parser_->Get(i); }

void BatchParser::ParseRange(Lane& lane, size_t begin, size_t end) {
  const std::vector<kafka::InputMessage>& batch = *batch_;
  for (size_t i = begin; i < end; ++i) {
    Result& r = results_[i];
    r.ok = lane.parser->Parse(batch[i].key, batch[i].value, now_ms_, &r.event, &r.rejection);
  }
}

void BatchParser::ParseChunk(Lane& lane, size_t c) {
  ParseRange(lane, c * kChunk, std::min(batch_->size(), (c + 1) * kChunk));
  chunk_state_[c].store(kParsed, std::memory_order_release);
  chunk_state_[c].notify_one();
}

void BatchParser::Begin(const std::vector<kafka::InputMessage>& batch, int64_t now_ms) {
  // Grown, never shrunk: each slot keeps its strings' capacity.
  if (results_.size() < batch.size()) results_.resize(batch.size());
  batch_ = &batch;
  now_ms_ = now_ms;
  shared_ = batch.size() >= split_at_;
  if (!shared_) {
    ParseRange(lanes_[0], 0, batch.size());
    return;
  }
  chunk_count_ = (batch.size() + kChunk - 1) / kChunk;
  if (chunk_capacity_ < chunk_count_) {
    chunk_state_ = std::make_unique<std::atomic<uint32_t>[]>(chunk_count_);
    chunk_capacity_ = chunk_count_;
  }
  for (size_t c = 0; c < chunk_count_; ++c) chunk_state_[c].store(kPending, std::memory_order_relaxed);
  next_chunk_.store(0, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_pending_ = true;
    job_done_ = false;
  }
  if (!worker_.joinable()) {
    worker_ = std::thread([this] { WorkerLoop(); });
  } else {
    cv_.notify_all();
  }
}

BatchParser::Result& BatchParser::Get(size_t i) {
  if (!shared_) return results_[i];
  std::atomic<uint32_t>& state = chunk_state_[i / kChunk];
  for (;;) {
    const uint32_t s = state.load(std::memory_order_acquire);
    if (s == kParsed) return results_[i];
    if (s == kFailed) std::rethrow_exception(worker_error_);
    // Not parsed yet: parse the next chunk nobody has taken (this one, or
    // one ahead of it if the worker has taken this one), else wait.
    const size_t c = next_chunk_.fetch_add(1, std::memory_order_relaxed);
    if (c < chunk_count_) {
      ParseChunk(lanes_[0], c);
    } else {
      state.wait(kPending, std::memory_order_acquire);
    }
  }
}

void BatchParser::End() {
  if (!shared_) return;
  // The chunks nobody has taken (messages Process skipped, or a batch left
  // by an exception) are not parsed.
  next_chunk_.store(chunk_count_, std::memory_order_relaxed);
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return job_done_; });
  shared_ = false;
}

void BatchParser::WorkerLoop() {
  pthread_setname_np(pthread_self(), "vanon-parse");  // for top -H and perf
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return job_pending_ || stopping_; });
    if (stopping_) return;
    job_pending_ = false;
    lock.unlock();
    for (size_t c; (c = next_chunk_.fetch_add(1, std::memory_order_relaxed)) < chunk_count_;) {
      try {
        ParseChunk(lanes_[1], c);
      } catch (...) {
        worker_error_ = std::current_exception();
        chunk_state_[c].store(kFailed, std::memory_order_release);
        chunk_state_[c].notify_one();
        break;
      }
    }
    lock.lock();
    job_done_ = true;
    cv_.notify_all();
  }
}

release::PayloadStats BatchParser::stats() const {
  release::PayloadStats s;
  for (const Lane& lane : lanes_) {
    s.malformed_fields += lane.payload->stats().malformed_fields;
    s.malformed_payloads += lane.payload->stats().malformed_payloads;
  }
  return s;
}

}  // namespace vanon::service
