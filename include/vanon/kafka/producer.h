// A thin producer used for the DLQ and by the load generator. Delivery
// failures are counted, never dropped silently: callers flush and check
// failures() before they record the input offsets as done.
#ifndef VANON_KAFKA_PRODUCER_H_
#define VANON_KAFKA_PRODUCER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vanon/kafka/client_config.h"

namespace RdKafka {
class Producer;
class DeliveryReportCb;
}  // namespace RdKafka

namespace vanon::kafka {

using KafkaHeaders = std::vector<std::pair<std::string, std::string>>;

class Producer {
 public:
  Producer(const std::string& bootstrap, const KafkaProperties& user, const KafkaProperties& user_specific,
           const KafkaProperties& defaults = {});
  ~Producer();
  Producer(const Producer&) = delete;
  Producer& operator=(const Producer&) = delete;

  // Queues one message; partition -1 lets the key choose. Blocks (serving
  // delivery reports) while the local queue is full. Throws on other errors.
  void Produce(const std::string& topic, int32_t partition, std::string_view key, std::string_view value,
               const KafkaHeaders& headers = {});

  // Serves delivery reports without blocking.
  void Poll();

  // Waits until every queued message is delivered or failed. False on timeout.
  bool Flush(int timeout_ms);

  uint64_t delivered() const { return delivered_.load(); }
  uint64_t failures() const { return failures_.load(); }
  std::string last_error() const;

 private:
  class Reporter;
  std::unique_ptr<Reporter> reporter_;
  std::unique_ptr<RdKafka::Producer> producer_;
  std::atomic<uint64_t> delivered_{0};
  std::atomic<uint64_t> failures_{0};
};

}  // namespace vanon::kafka

#endif  // VANON_KAFKA_PRODUCER_H_
