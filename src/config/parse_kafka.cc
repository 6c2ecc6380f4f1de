#include "parse.h"

namespace vanon::config::internal {

namespace {

// Kafka's own rule for topic names.
bool IsTopicName(const std::string& s) {
  if (s.empty() || s.size() > 249 || s == "." || s == "..") return false;
  for (char c : s) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

void ReadTopic(Section& s, const char* key, std::string* out) {
  std::string value;
  if (!s.String(key, &value)) return;
  if (!IsTopicName(value)) {
    s.Error(key, "\"" + value + "\" is not a valid Kafka topic name");
    return;
  }
  *out = value;
}

// The service sets these itself; letting a property map override them would
// silently break consumer groups or transactions.
void ReadProperties(Section& s, const char* key, std::map<std::string, std::string>* out) {
  if (!s.StringMap(key, out)) return;
  static const std::pair<const char*, const char*> kReserved[] = {
      {"bootstrap.servers", "kafka.bootstrap"},
      {"group.id", "kafka.group_id"},
      {"transactional.id", "kafka.transactional_id_prefix"},
  };
  for (const auto& [name, instead] : kReserved) {
    if (out->count(name) != 0) {
      s.diag()->Error(ChildPath(s.PathOf(key), name), std::string("set by ") + instead + ", not here");
    }
  }
}

}  // namespace

void ParseKafka(Section& root, KafkaConfig* out) {
  Section s(root.diag(), root.Child("kafka"), "kafka");
  if (s.String("bootstrap", &out->bootstrap, /*required=*/true)) {
    // "a:9092,,b:9092" is a typo librdkafka would accept silently.
    const std::string& b = out->bootstrap;
    if (b.front() == ',' || b.back() == ',' || b.find(",,") != std::string::npos || b.find(' ') != std::string::npos) {
      s.Error("bootstrap", "expected a comma-separated list of host:port");
    }
  }
  s.String("group_id", &out->group_id);
  s.String("transactional_id_prefix", &out->transactional_id_prefix);
  {
    Section t(root.diag(), s.Child("topics"), s.PathOf("topics"));
    ReadTopic(t, "input", &out->topics.input);
    ReadTopic(t, "dlq", &out->topics.dlq);
    ReadTopic(t, "anonymized", &out->topics.anonymized);
    ReadTopic(t, "releases", &out->topics.releases);
    ReadTopic(t, "counts", &out->topics.counts);
    ReadTopic(t, "late", &out->topics.late);
  }
  ReadProperties(s, "properties", &out->properties);
  ReadProperties(s, "consumer_properties", &out->consumer_properties);
  ReadProperties(s, "producer_properties", &out->producer_properties);
  s.Int("poll_batch_max", &out->poll_batch_max, 1, 100000);
  s.Int("poll_timeout_ms", &out->poll_timeout_ms, 1, 10000);
  s.Bool("create_internal_topics", &out->create_internal_topics);
}

}  // namespace vanon::config::internal
