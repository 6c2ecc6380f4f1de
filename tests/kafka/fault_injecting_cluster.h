// A mock cluster that can answer requests with chosen errors. vanon's
// MockCluster does not expose librdkafka's error injection, and the mock does
// not fence producers by itself (a second InitProducerId for the same
// transactional.id gets a fresh producer id instead of bumping the epoch), so
// this is how the tests put a producer in the broker states it must handle.
#ifndef VANON_TESTS_KAFKA_FAULT_INJECTING_CLUSTER_H_
#define VANON_TESTS_KAFKA_FAULT_INJECTING_CLUSTER_H_

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace vanon::kafka {

// Kafka protocol API keys (rdkafka's names for them are not public).
constexpr int16_t kProduceApi = 0;
constexpr int16_t kAddPartitionsToTxnApi = 24;
constexpr int16_t kEndTxnApi = 26;

class FaultInjectingCluster {
 public:
  FaultInjectingCluster() {
    char err[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "log_level", "3", err, sizeof err);
    owner_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    if (owner_ == nullptr) {
      rd_kafka_conf_destroy(conf);
      throw std::runtime_error(err);
    }
    cluster_ = rd_kafka_mock_cluster_new(owner_, 1);
    if (cluster_ == nullptr) {
      rd_kafka_destroy(owner_);
      throw std::runtime_error("rd_kafka_mock_cluster_new failed");
    }
  }
  ~FaultInjectingCluster() {
    rd_kafka_mock_cluster_destroy(cluster_);
    rd_kafka_destroy(owner_);
  }
  FaultInjectingCluster(const FaultInjectingCluster&) = delete;
  FaultInjectingCluster& operator=(const FaultInjectingCluster&) = delete;

  void CreateTopic(const std::string& name, int partitions) {
    if (rd_kafka_mock_topic_create(cluster_, name.c_str(), partitions, 1) != RD_KAFKA_RESP_ERR_NO_ERROR) {
      throw std::runtime_error("create topic " + name);
    }
  }
  std::string Bootstrap() const { return rd_kafka_mock_cluster_bootstraps(cluster_); }

  // The next errors.size() requests of this API get these errors, in order.
  void FailNext(int16_t api_key, const std::vector<rd_kafka_resp_err_t>& errors) {
    rd_kafka_mock_push_request_errors_array(cluster_, api_key, errors.size(), errors.data());
  }

 private:
  rd_kafka_t* owner_ = nullptr;
  rd_kafka_mock_cluster_t* cluster_ = nullptr;
};

}  // namespace vanon::kafka

#endif  // VANON_TESTS_KAFKA_FAULT_INJECTING_CLUSTER_H_
