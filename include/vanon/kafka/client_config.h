// Turns vanon's view of a Kafka client (bootstrap plus pass-through
// properties) into an RdKafka::Conf, so SASL/SSL and tuning keys work
// unchanged without vanon knowing them.
#ifndef VANON_KAFKA_CLIENT_CONFIG_H_
#define VANON_KAFKA_CLIENT_CONFIG_H_

#include <map>
#include <memory>
#include <string>

namespace RdKafka {
class Conf;
}

namespace vanon::kafka {

using KafkaProperties = std::map<std::string, std::string>;

// Later maps override earlier ones. Throws std::runtime_error naming the
// property librdkafka refused (never its value: it may be a password).
std::unique_ptr<RdKafka::Conf> MakeKafkaConf(const std::string& bootstrap, const KafkaProperties& defaults,
                                             const KafkaProperties& user, const KafkaProperties& user_specific);

}  // namespace vanon::kafka

#endif  // VANON_KAFKA_CLIENT_CONFIG_H_
