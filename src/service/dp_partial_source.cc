#include "vanon/service/dp_partial_source.h"

#include "vanon/kafka/committed_reader.h"

namespace vanon::service {

namespace {

class KafkaPartialSource final : public DpPartialSource {
 public:
  explicit KafkaPartialSource(const config::Config& c) : config_(c) {}

  // One consumer for the process's life, made at the first read (issue 17:
  // a consumer per release connected to the cluster every time).
  void Read(int64_t from, int64_t bound, const Visit& fn) override {
    if (!reader_) {
      const config::KafkaConfig& k = config_.kafka;
      reader_ = std::make_unique<kafka::CommittedReader>(k.bootstrap, k.properties, k.consumer_properties,
                                                         config_.dp.aggregation.topic, 0);
    }
    reader_->Read(from, [&](const kafka::CommittedRecord& r) {
      if (bound >= 0 && r.offset >= bound) return false;
      fn(r.offset, r.value);
      return true;
    });
  }

 private:
  const config::Config& config_;
  std::unique_ptr<kafka::CommittedReader> reader_;
};

}  // namespace

std::unique_ptr<DpPartialSource> NewKafkaPartialSource(const config::Config& config) {
  return std::make_unique<KafkaPartialSource>(config);
}

}  // namespace vanon::service
