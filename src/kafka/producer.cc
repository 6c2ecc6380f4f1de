#include "vanon/kafka/producer.h"

#include <librdkafka/rdkafkacpp.h>

#include <mutex>
#include <stdexcept>

namespace vanon::kafka {

class Producer::Reporter : public RdKafka::DeliveryReportCb {
 public:
  explicit Reporter(Producer* owner) : owner_(owner) {}
  void dr_cb(RdKafka::Message& m) override {
    if (m.err() == RdKafka::ERR_NO_ERROR) {
      owner_->delivered_++;
    } else {
      owner_->failures_++;
      std::lock_guard<std::mutex> l(mu_);
      last_error_ = m.errstr();
    }
  }
  std::string last_error() const {
    std::lock_guard<std::mutex> l(mu_);
    return last_error_;
  }

 private:
  Producer* owner_;
  mutable std::mutex mu_;
  std::string last_error_;
};

Producer::Producer(const std::string& bootstrap, const KafkaProperties& user, const KafkaProperties& user_specific,
                   const KafkaProperties& defaults)
    : reporter_(std::make_unique<Reporter>(this)) {
  KafkaProperties base = {{"enable.idempotence", "true"}, {"linger.ms", "5"}};
  for (const auto& kv : defaults) base[kv.first] = kv.second;
  auto conf = MakeKafkaConf(bootstrap, base, user, user_specific);
  std::string err;
  if (conf->set("dr_cb", static_cast<RdKafka::DeliveryReportCb*>(reporter_.get()), err) != RdKafka::Conf::CONF_OK) {
    throw std::runtime_error("producer dr_cb: " + err);
  }
  producer_.reset(RdKafka::Producer::create(conf.get(), err));
  if (!producer_) throw std::runtime_error("producer: " + err);
}

Producer::~Producer() {
  if (producer_) producer_->flush(10000);
}

void Producer::Produce(const std::string& topic, int32_t partition, std::string_view key, std::string_view value,
                       const KafkaHeaders& headers) {
  for (;;) {
    RdKafka::Headers* h = nullptr;
    if (!headers.empty()) {
      h = RdKafka::Headers::create();
      for (const auto& [name, v] : headers) h->add(name, v.data(), v.size());
    }
    RdKafka::ErrorCode e =
        producer_->produce(topic, partition, RdKafka::Producer::RK_MSG_COPY, const_cast<char*>(value.data()),
                           value.size(), key.data(), key.size(), 0, h, nullptr);
    if (e == RdKafka::ERR_NO_ERROR) return;  // headers now owned by librdkafka
    delete h;
    if (e == RdKafka::ERR__QUEUE_FULL) {
      producer_->poll(10);
      continue;
    }
    throw std::runtime_error("produce to " + topic + ": " + RdKafka::err2str(e));
  }
}

void Producer::Poll() { producer_->poll(0); }

bool Producer::Flush(int timeout_ms) { return producer_->flush(timeout_ms) == RdKafka::ERR_NO_ERROR; }

std::string Producer::last_error() const { return reporter_->last_error(); }

}  // namespace vanon::kafka
