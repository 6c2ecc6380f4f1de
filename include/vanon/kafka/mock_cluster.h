// An in-process Kafka cluster speaking the real wire protocol, for the demo and
// tests. It is librdkafka's mock cluster: listeners on 127.0.0.1, about 5 MB
// retained per partition (older messages are dropped, so readers must watch the
// low watermark rather than count truncation as loss).
#ifndef VANON_KAFKA_MOCK_CLUSTER_H_
#define VANON_KAFKA_MOCK_CLUSTER_H_

#include <memory>
#include <string>

namespace vanon::kafka {

class MockCluster {
 public:
  // Starts `brokers` mock brokers. Throws std::runtime_error on failure.
  explicit MockCluster(int brokers);
  ~MockCluster();
  MockCluster(const MockCluster&) = delete;
  MockCluster& operator=(const MockCluster&) = delete;

  // Creates a topic (replication factor 1). Throws on error.
  void CreateTopic(const std::string& name, int partitions);

  // Comma-separated host:port list to use as bootstrap.servers.
  std::string Bootstrap() const;

 private:
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace vanon::kafka

#endif  // VANON_KAFKA_MOCK_CLUSTER_H_
