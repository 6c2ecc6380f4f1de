#include "vanon/kafka/client_config.h"

#include <librdkafka/rdkafkacpp.h>

#include <stdexcept>

namespace vanon::kafka {

namespace {
void Apply(RdKafka::Conf* conf, const KafkaProperties& props) {
  std::string err;
  for (const auto& [k, v] : props) {
    if (conf->set(k, v, err) != RdKafka::Conf::CONF_OK) {
      throw std::runtime_error("kafka property '" + k + "': " + err);
    }
  }
}
}  // namespace

std::unique_ptr<RdKafka::Conf> MakeKafkaConf(const std::string& bootstrap, const KafkaProperties& defaults,
                                             const KafkaProperties& user, const KafkaProperties& user_specific) {
  std::unique_ptr<RdKafka::Conf> conf(RdKafka::Conf::create(RdKafka::Conf::CONF_GLOBAL));
  Apply(conf.get(), {{"bootstrap.servers", bootstrap}});
  Apply(conf.get(), defaults);
  Apply(conf.get(), user);
  Apply(conf.get(), user_specific);
  return conf;
}

}  // namespace vanon::kafka
