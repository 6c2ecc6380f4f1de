#include "vanon/kafka/mock_cluster.h"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <stdexcept>

namespace vanon::kafka {

// The mock cluster lives inside an rd_kafka_t handle; a producer handle that is
// never used to produce is the cheapest owner.
struct MockCluster::Rep {
  rd_kafka_t* owner = nullptr;
  rd_kafka_mock_cluster_t* cluster = nullptr;
};

MockCluster::MockCluster(int brokers) : rep_(std::make_unique<Rep>()) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  // Silence the owner's own attempts to reach a bootstrap it does not have.
  rd_kafka_conf_set(conf, "log_level", "3", err, sizeof err);
  rep_->owner = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (rep_->owner == nullptr) {
    rd_kafka_conf_destroy(conf);
    throw std::runtime_error(std::string("mock cluster owner: ") + err);
  }
  rep_->cluster = rd_kafka_mock_cluster_new(rep_->owner, brokers);
  if (rep_->cluster == nullptr) {
    rd_kafka_destroy(rep_->owner);
    throw std::runtime_error("rd_kafka_mock_cluster_new failed");
  }
}

MockCluster::~MockCluster() {
  rd_kafka_mock_cluster_destroy(rep_->cluster);
  rd_kafka_destroy(rep_->owner);
}

void MockCluster::CreateTopic(const std::string& name, int partitions) {
  rd_kafka_resp_err_t e = rd_kafka_mock_topic_create(rep_->cluster, name.c_str(), partitions, 1);
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
    throw std::runtime_error("create topic " + name + ": " + rd_kafka_err2str(e));
  }
}

std::string MockCluster::Bootstrap() const { return rd_kafka_mock_cluster_bootstraps(rep_->cluster); }

}  // namespace vanon::kafka
