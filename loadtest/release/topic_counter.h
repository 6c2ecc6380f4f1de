// Reads every partition of a topic from the beginning on its own thread, as a
// read_committed consumer, and counts what it sees. The mock cluster keeps
// only about 5 MB per partition, so a reader that falls behind finds the
// head deleted: those records are counted as `truncated` (offset gaps after
// the reset to the earliest offset), never as missing output.
//
// With nice > 0 the reader runs at that lower CPU priority, and so do the
// librdkafka threads of its consumer (created from the reader thread, they
// inherit its nice value): it then reads with what the process under test
// leaves idle, and falls behind (truncated records) rather than slowing it.
#ifndef VANON_LOADTEST_RELEASE_TOPIC_COUNTER_H_
#define VANON_LOADTEST_RELEASE_TOPIC_COUNTER_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

namespace vanon::loadtest {

class TopicCounter {
 public:
  // Called on the reader thread for every record, with the wall time (ms)
  // at which the batch holding it was returned to the reader.
  using RecordFn = std::function<void(int32_t partition, std::string_view value, int64_t seen_wall_ms)>;

  // Throws if the consumer cannot be made or assigned.
  TopicCounter(const std::string& bootstrap, const std::string& topic, int partitions, RecordFn on_record = nullptr,
               int nice = 0);
  ~TopicCounter();  // stops the thread
  TopicCounter(const TopicCounter&) = delete;
  TopicCounter& operator=(const TopicCounter&) = delete;

  uint64_t read() const { return read_.load(std::memory_order_relaxed); }
  uint64_t truncated() const { return truncated_.load(std::memory_order_relaxed); }
  // Steady time of the first and last record read (epoch 0 when none).
  std::chrono::steady_clock::time_point first_at() const;
  std::chrono::steady_clock::time_point last_at() const;
  // Non-empty when the reader stopped on an error.
  std::string error() const;

 private:
  struct Rep;
  void Read(int partitions, const RecordFn& on_record);  // the reader thread, until stopped

  std::unique_ptr<Rep> rep_;
  std::atomic<uint64_t> read_{0};
  std::atomic<uint64_t> truncated_{0};
};

// Sum of the high watermarks of partitions [0, partitions): on the mock,
// which writes no transaction markers, this is the number of records ever
// appended. Throws on error.
int64_t SumHighWatermarks(const std::string& bootstrap, const std::string& topic, int partitions);

}  // namespace vanon::loadtest

#endif  // VANON_LOADTEST_RELEASE_TOPIC_COUNTER_H_
