#include "service/dp/dp_partial_source.h"

#include <stdexcept>
#include <string>

#include "vanon/kafka/committed_reader.h"
#include "vanon/seal/record_sealer.h"

namespace vanon::service {

namespace {

class KafkaPartialSource final : public DpPartialSource {
 public:
  KafkaPartialSource(const config::Config& c, const seal::RecordSealer* sealer) : config_(c), sealer_(sealer) {}

  // One consumer for the process's life, made at the first read
  // (a consumer per release would connect to the cluster every time).
  void Read(int64_t from, int64_t bound, const Visit& fn) override {
    if (!reader_) {
      const config::KafkaConfig& k = config_.kafka;
      reader_ = std::make_unique<kafka::CommittedReader>(k.bootstrap, k.properties, k.consumer_properties,
                                                         config_.dp.aggregation.topic, 0);
    }
    reader_->Read(from, [&](const kafka::CommittedRecord& r) {
      if (bound >= 0 && r.offset >= bound) return false;
      seal::Opened opened = sealer_->Open({config_.dp.aggregation.topic, 0, r.key}, r.value);
      if (opened.status != seal::OpenStatus::kOk) {
        throw std::runtime_error("dp: the partial at offset " + std::to_string(r.offset) + " of " +
                                 config_.dp.aggregation.topic + " " +
                                 seal::RecordSealer::Describe(opened, config_.security.state_keys_env));
      }
      fn(r.offset, opened.plaintext);
      return true;
    });
  }

 private:
  const config::Config& config_;
  const seal::RecordSealer* sealer_;
  std::unique_ptr<kafka::CommittedReader> reader_;
};

}  // namespace

std::unique_ptr<DpPartialSource> NewKafkaPartialSource(const config::Config& config, const seal::RecordSealer* sealer) {
  if (sealer == nullptr) throw std::invalid_argument("dp: a partial source without a sealer");
  return std::make_unique<KafkaPartialSource>(config, sealer);
}

}  // namespace vanon::service
