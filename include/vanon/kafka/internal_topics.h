// The internal topics vanon owns (state changelog, DP partials), created at
// start-up with Kafka's admin API the way Kafka Streams creates its own, and
// checked when they already exist: a changelog with the wrong partition count
// or one that is not compacted would silently lose state.
#ifndef VANON_KAFKA_INTERNAL_TOPICS_H_
#define VANON_KAFKA_INTERNAL_TOPICS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vanon/kafka/client_config.h"

namespace vanon::kafka {

struct InternalTopicSpec {
  std::string name;
  std::string purpose;           // names the config key in messages, e.g. "state.changelog.topic"
  int32_t partitions = 1;        // created with this many
  bool exact_partitions = true;  // an existing topic must have exactly (else at least) this many
  // Topic configs set at creation. "cleanup.policy" is also checked on an
  // existing topic, when the broker reports its configs.
  std::map<std::string, std::string> configs;
};

// What the broker says about one topic.
struct TopicFacts {
  bool exists = false;
  int32_t partitions = 0;
  std::optional<std::string> cleanup_policy;  // empty: the broker did not report configs
};

// Empty when `facts` satisfy `spec`, else the reason vanon refuses to start.
// Pure, so every refusal is testable without a broker.
std::string CheckInternalTopic(const InternalTopicSpec& spec, const TopicFacts& facts);

// Makes every internal topic exist and fit its spec, or throws
// std::runtime_error naming the topic, its config key and the fix.
// With `create` false a missing topic is an error (the operator manages
// topics); with it true the missing ones are created (CreateTopics,
// replication factor = the broker's default.replication.factor), "already
// exists" (another instance won the race) is fine, and every topic is
// checked afterwards either way. A broker that cannot describe configs
// (librdkafka's mock cluster) leaves cleanup.policy unchecked. Returns one
// line per topic for the log (created, found, configs not reported).
std::vector<std::string> EnsureInternalTopics(const std::string& bootstrap, const KafkaProperties& properties,
                                              const std::vector<InternalTopicSpec>& topics, bool create,
                                              int timeout_ms = 30000);

}  // namespace vanon::kafka

#endif  // VANON_KAFKA_INTERNAL_TOPICS_H_
