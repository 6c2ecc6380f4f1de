#include "service/ingest/batch_parser.h"

#include <pthread.h>

#include <utility>

namespace vanon::service {

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

void BatchParser::ParseRange(Lane& lane, size_t begin, size_t end) {
  const std::vector<kafka::InputMessage>& batch = *job_batch_;
  for (size_t i = begin; i < end; ++i) {
    Result& r = results_[i];
    r.ok = lane.parser->Parse(batch[i].key, batch[i].value, job_now_ms_, &r.event, &r.rejection);
  }
}

void BatchParser::Parse(const std::vector<kafka::InputMessage>& batch, int64_t now_ms) {
  // Grown, never shrunk: each slot keeps its strings' capacity.
  if (results_.size() < batch.size()) results_.resize(batch.size());
  job_batch_ = &batch;
  job_now_ms_ = now_ms;
  if (batch.size() < split_at_) {
    ParseRange(lanes_[0], 0, batch.size());
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_pending_ = true;
    job_done_ = false;
    job_error_ = nullptr;
  }
  if (!worker_.joinable()) {
    worker_ = std::thread([this] { WorkerLoop(); });
  } else {
    cv_.notify_all();
  }
  std::exception_ptr own_error;
  try {
    ParseRange(lanes_[0], 0, batch.size() / 2);
  } catch (...) {
    own_error = std::current_exception();
  }
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return job_done_; });
  if (own_error) std::rethrow_exception(own_error);
  if (job_error_) std::rethrow_exception(job_error_);
}

void BatchParser::WorkerLoop() {
  pthread_setname_np(pthread_self(), "vanon-parse");  // for top -H and perf
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return job_pending_ || stopping_; });
    if (stopping_) return;
    job_pending_ = false;
    const size_t size = job_batch_->size();
    lock.unlock();
    std::exception_ptr error;
    try {
      ParseRange(lanes_[1], size / 2, size);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    job_error_ = error;
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
