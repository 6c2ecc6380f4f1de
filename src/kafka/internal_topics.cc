#include "vanon/kafka/internal_topics.h"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafkacpp.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace vanon::kafka {

namespace {

struct QueueDeleter {
  void operator()(rd_kafka_queue_t* q) const { rd_kafka_queue_destroy(q); }
};
struct EventDeleter {
  void operator()(rd_kafka_event_t* e) const { rd_kafka_event_destroy(e); }
};
struct OptionsDeleter {
  void operator()(rd_kafka_AdminOptions_t* o) const { rd_kafka_AdminOptions_destroy(o); }
};
using Queue = std::unique_ptr<rd_kafka_queue_t, QueueDeleter>;
using Event = std::unique_ptr<rd_kafka_event_t, EventDeleter>;
using Options = std::unique_ptr<rd_kafka_AdminOptions_t, OptionsDeleter>;

std::string Label(const InternalTopicSpec& s) { return s.purpose + " topic " + s.name; }

// What an operator types instead, when vanon may not or cannot create it.
std::string ByHand(const InternalTopicSpec& s) {
  std::string out = "create it with " + std::to_string(s.partitions) + " partition(s)";
  for (const auto& [k, v] : s.configs) out += ", " + k + "=" + v;
  return out;
}

// "delete, compact" and "compact,delete" are the same policy.
std::string NormalizePolicy(const std::string& policy) {
  std::vector<std::string> parts;
  std::stringstream in(policy);
  for (std::string p; std::getline(in, p, ',');) {
    p.erase(std::remove(p.begin(), p.end(), ' '), p.end());
    if (!p.empty()) parts.push_back(p);
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

// A short-lived client for the admin calls and the metadata they need.
class Admin {
 public:
  Admin(const std::string& bootstrap, const KafkaProperties& properties) {
    std::unique_ptr<RdKafka::Conf> conf = MakeKafkaConf(bootstrap, {}, properties, {});
    std::string err;
    client_.reset(RdKafka::Producer::create(conf.get(), err));
    if (!client_) throw std::runtime_error("kafka admin client: " + err);
  }

  // Every topic and its partition count. Asks for all topics on purpose: a
  // request naming a missing topic may auto-create it (the mock always does,
  // with 4 partitions).
  std::map<std::string, int32_t> ListTopics(int timeout_ms) {
    RdKafka::Metadata* raw = nullptr;
    RdKafka::ErrorCode e = client_->metadata(true, nullptr, &raw, timeout_ms);
    std::unique_ptr<RdKafka::Metadata> md(raw);
    if (e != RdKafka::ERR_NO_ERROR) throw std::runtime_error("listing topics: " + RdKafka::err2str(e));
    brokers_.clear();
    for (const RdKafka::BrokerMetadata* b : *md->brokers()) brokers_.push_back(b->id());
    std::map<std::string, int32_t> out;
    for (const RdKafka::TopicMetadata* t : *md->topics()) {
      if (t->err() == RdKafka::ERR_NO_ERROR) out[t->topic()] = static_cast<int32_t>(t->partitions()->size());
    }
    return out;
  }

  // Admin requests go to the controller. librdkafka's mock cluster names
  // broker 0, which it does not have: librdkafka would wait for it until
  // the request times out, so the caller skips the request instead.
  bool HasController() const {
    const int32_t id = rd_kafka_controllerid(client_->c_ptr(), 1000);
    return std::find(brokers_.begin(), brokers_.end(), id) != brokers_.end();
  }

  // Per topic: empty when created or already there, else the broker's reason.
  std::map<std::string, std::string> Create(const std::vector<const InternalTopicSpec*>& specs, int timeout_ms);

  // cleanup.policy of each topic the broker describes; absent when it does
  // not (no DescribeConfigs, as librdkafka 2.0.2's mock, or not allowed).
  std::map<std::string, std::string> CleanupPolicies(const std::vector<std::string>& topics, int timeout_ms);

 private:
  Options MakeOptions(rd_kafka_admin_op_t op, int timeout_ms) {
    Options o(rd_kafka_AdminOptions_new(client_->c_ptr(), op));
    char err[256];
    rd_kafka_AdminOptions_set_request_timeout(o.get(), timeout_ms, err, sizeof err);
    if (op == RD_KAFKA_ADMIN_OP_CREATETOPICS) {
      // The broker answers once the topic exists on the partitions' leaders.
      rd_kafka_AdminOptions_set_operation_timeout(o.get(), timeout_ms, err, sizeof err);
    }
    return o;
  }

  Event Await(rd_kafka_queue_t* q, int timeout_ms, const char* what) {
    Event ev(rd_kafka_queue_poll(q, timeout_ms + 5000));
    if (!ev) throw std::runtime_error(std::string(what) + ": no answer from the cluster");
    return ev;
  }

  std::unique_ptr<RdKafka::Producer> client_;
  std::vector<int32_t> brokers_;  // of the last ListTopics
};

std::map<std::string, std::string> Admin::Create(const std::vector<const InternalTopicSpec*>& specs, int timeout_ms) {
  std::vector<rd_kafka_NewTopic_t*> topics;
  auto destroy = [&] { rd_kafka_NewTopic_destroy_array(topics.data(), topics.size()); };
  char err[512];
  for (const InternalTopicSpec* s : specs) {
    // Replication -1: the broker's default.replication.factor (KIP-464).
    rd_kafka_NewTopic_t* t = rd_kafka_NewTopic_new(s->name.c_str(), s->partitions, -1, err, sizeof err);
    if (!t) {
      destroy();
      throw std::runtime_error("creating " + Label(*s) + ": " + err);
    }
    topics.push_back(t);
    for (const auto& [k, v] : s->configs) rd_kafka_NewTopic_set_config(t, k.c_str(), v.c_str());
  }
  Queue q(rd_kafka_queue_new(client_->c_ptr()));
  Options o = MakeOptions(RD_KAFKA_ADMIN_OP_CREATETOPICS, timeout_ms);
  rd_kafka_CreateTopics(client_->c_ptr(), topics.data(), topics.size(), o.get(), q.get());
  destroy();
  Event ev = Await(q.get(), timeout_ms, "CreateTopics");
  std::map<std::string, std::string> out;
  if (rd_kafka_event_error(ev.get())) {  // the whole request failed
    for (const InternalTopicSpec* s : specs) out[s->name] = rd_kafka_event_error_string(ev.get());
    return out;
  }
  size_t n = 0;
  const rd_kafka_topic_result_t** r =
      rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev.get()), &n);
  for (size_t i = 0; i < n; ++i) {
    const rd_kafka_resp_err_t e = rd_kafka_topic_result_error(r[i]);
    const bool fine = e == RD_KAFKA_RESP_ERR_NO_ERROR || e == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS;
    const char* why = rd_kafka_topic_result_error_string(r[i]);
    out[rd_kafka_topic_result_name(r[i])] = fine ? "" : (why ? why : rd_kafka_err2str(e));
  }
  return out;
}

std::map<std::string, std::string> Admin::CleanupPolicies(const std::vector<std::string>& topics, int timeout_ms) {
  std::map<std::string, std::string> out;
  if (topics.empty() || !HasController()) return out;
  std::vector<rd_kafka_ConfigResource_t*> res;
  for (const std::string& t : topics) res.push_back(rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, t.c_str()));
  Queue q(rd_kafka_queue_new(client_->c_ptr()));
  Options o = MakeOptions(RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS, timeout_ms);
  rd_kafka_DescribeConfigs(client_->c_ptr(), res.data(), res.size(), o.get(), q.get());
  rd_kafka_ConfigResource_destroy_array(res.data(), res.size());
  Event ev = Await(q.get(), timeout_ms, "DescribeConfigs");
  if (rd_kafka_event_error(ev.get())) return out;  // not reported
  size_t n = 0;
  const rd_kafka_ConfigResource_t** r =
      rd_kafka_DescribeConfigs_result_resources(rd_kafka_event_DescribeConfigs_result(ev.get()), &n);
  for (size_t i = 0; i < n; ++i) {
    if (rd_kafka_ConfigResource_error(r[i])) continue;
    size_t m = 0;
    const rd_kafka_ConfigEntry_t** entries = rd_kafka_ConfigResource_configs(r[i], &m);
    for (size_t j = 0; j < m; ++j) {
      const char* value = rd_kafka_ConfigEntry_value(entries[j]);
      if (std::string(rd_kafka_ConfigEntry_name(entries[j])) == "cleanup.policy" && value) {
        out[rd_kafka_ConfigResource_name(r[i])] = value;
      }
    }
  }
  return out;
}

// Creates what is missing; throws with the broker's reason and the manual
// fix when the cluster refuses (no CreateTopics, no Create ACL, ...).
void CreateMissing(Admin* admin, const std::vector<const InternalTopicSpec*>& missing, int timeout_ms,
                   std::vector<std::string>* log) {
  std::map<std::string, std::string> failed;
  for (const InternalTopicSpec* s : missing) failed[s->name] = "the cluster names no controller broker to ask";
  if (admin->HasController()) failed = admin->Create(missing, timeout_ms);
  for (const InternalTopicSpec* s : missing) {
    auto it = failed.find(s->name);
    if (it == failed.end()) throw std::runtime_error("creating " + Label(*s) + ": not in the broker's answer");
    if (!it->second.empty()) {
      throw std::runtime_error("cannot create " + Label(*s) + ": " + it->second + "; " + ByHand(*s) +
                               ", or give vanon's principal the Create ACL");
    }
    log->push_back("created " + Label(*s) + " with " + std::to_string(s->partitions) + " partition(s)");
  }
}

// A created topic can take a moment to appear in metadata.
std::map<std::string, int32_t> WaitForTopics(Admin* admin, const std::vector<InternalTopicSpec>& specs,
                                             int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    std::map<std::string, int32_t> have = admin->ListTopics(timeout_ms);
    bool all = std::all_of(specs.begin(), specs.end(), [&](const auto& s) { return have.count(s.name) > 0; });
    if (all || std::chrono::steady_clock::now() > deadline) return have;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

}  // namespace

std::string CheckInternalTopic(const InternalTopicSpec& spec, const TopicFacts& facts) {
  if (!facts.exists) {
    return Label(spec) + " does not exist: " + ByHand(spec) + ", or set kafka.create_internal_topics: true";
  }
  if (spec.exact_partitions ? facts.partitions != spec.partitions : facts.partitions < spec.partitions) {
    return Label(spec) + " has " + std::to_string(facts.partitions) + " partition(s); it needs " +
           (spec.exact_partitions ? "exactly " : "at least ") + std::to_string(spec.partitions) +
           (spec.purpose == "state.changelog.topic" ? " (one per input partition)" : "");
  }
  auto want = spec.configs.find("cleanup.policy");
  if (want != spec.configs.end() && facts.cleanup_policy &&
      NormalizePolicy(*facts.cleanup_policy) != NormalizePolicy(want->second)) {
    return Label(spec) + " has cleanup.policy=" + *facts.cleanup_policy + "; it needs cleanup.policy=" + want->second +
           " (kafka-configs --alter --entity-type topics --entity-name " + spec.name +
           " --add-config cleanup.policy=" + want->second + ")";
  }
  return "";
}

std::vector<std::string> EnsureInternalTopics(const std::string& bootstrap, const KafkaProperties& properties,
                                              const std::vector<InternalTopicSpec>& topics, bool create,
                                              int timeout_ms) {
  std::vector<std::string> log;
  if (topics.empty()) return log;
  Admin admin(bootstrap, properties);
  std::map<std::string, int32_t> have = admin.ListTopics(timeout_ms);
  std::vector<const InternalTopicSpec*> missing;
  for (const InternalTopicSpec& s : topics) {
    if (have.count(s.name) == 0) missing.push_back(&s);
  }
  if (create && !missing.empty()) {
    CreateMissing(&admin, missing, timeout_ms, &log);
    have = WaitForTopics(&admin, topics, timeout_ms);
  }
  std::vector<std::string> described;
  for (const InternalTopicSpec& s : topics) {
    if (have.count(s.name) != 0 && s.configs.count("cleanup.policy") != 0) described.push_back(s.name);
  }
  std::map<std::string, std::string> policies = admin.CleanupPolicies(described, timeout_ms);
  for (const InternalTopicSpec& s : topics) {
    TopicFacts f;
    f.exists = have.count(s.name) != 0;
    f.partitions = f.exists ? have[s.name] : 0;
    if (policies.count(s.name) != 0) f.cleanup_policy = policies[s.name];
    const std::string why = CheckInternalTopic(s, f);
    if (!why.empty()) throw std::runtime_error(why);
    std::string line = Label(s) + ": " + std::to_string(f.partitions) + " partition(s)";
    if (s.configs.count("cleanup.policy") != 0) {
      line += f.cleanup_policy ? ", cleanup.policy=" + *f.cleanup_policy
                               : ", cleanup.policy not reported by the broker (not checked)";
    }
    log.push_back(line);
  }
  return log;
}

}  // namespace vanon::kafka
