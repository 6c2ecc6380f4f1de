#include "topic_reader.h"

#include <librdkafka/rdkafkacpp.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>

namespace vanon::testing {

std::vector<TopicRecord> ReadTopic(const std::string& bootstrap, const std::string& topic, bool read_uncommitted) {
  std::string err;
  std::unique_ptr<RdKafka::Conf> conf(RdKafka::Conf::create(RdKafka::Conf::CONF_GLOBAL));
  conf->set("bootstrap.servers", bootstrap, err);
  conf->set("group.id", "test-topic-reader", err);
  conf->set("enable.auto.commit", "false", err);
  conf->set("isolation.level", read_uncommitted ? "read_uncommitted" : "read_committed", err);
  conf->set("enable.partition.eof", "true", err);
  std::unique_ptr<RdKafka::KafkaConsumer> c(RdKafka::KafkaConsumer::create(conf.get(), err));
  if (!c) throw std::runtime_error("consumer: " + err);
  RdKafka::Metadata* md = nullptr;
  std::unique_ptr<RdKafka::Topic> t(RdKafka::Topic::create(c.get(), topic, nullptr, err));
  if (c->metadata(false, t.get(), &md, 10000) != RdKafka::ERR_NO_ERROR) throw std::runtime_error("metadata");
  std::unique_ptr<RdKafka::Metadata> hold(md);
  std::vector<RdKafka::TopicPartition*> parts;
  size_t want_eof = 0;
  for (const auto* tm : *md->topics()) {
    if (tm->topic() != topic) continue;
    for (const auto* pm : *tm->partitions()) {
      int64_t lo = 0, hi = 0;
      c->query_watermark_offsets(topic, pm->id(), &lo, &hi, 10000);
      if (hi > lo) {
        parts.push_back(RdKafka::TopicPartition::create(topic, pm->id(), lo));
        ++want_eof;
      }
    }
  }
  std::vector<TopicRecord> out;
  if (!parts.empty()) {
    c->assign(parts);
    size_t eofs = 0;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (eofs < want_eof && std::chrono::steady_clock::now() < deadline) {
      std::unique_ptr<RdKafka::Message> m(c->consume(200));
      if (m->err() == RdKafka::ERR__PARTITION_EOF) {
        ++eofs;
        continue;
      }
      if (m->err() != RdKafka::ERR_NO_ERROR) continue;
      TopicRecord r;
      r.partition = m->partition();
      r.offset = m->offset();
      if (m->key()) r.key = *m->key();
      r.value.assign(static_cast<const char*>(m->payload()), m->len());
      if (RdKafka::Headers* h = m->headers()) {
        for (const auto& hd : h->get_all()) r.headers[hd.key()] = std::string(hd.value_string(), hd.value_size());
      }
      out.push_back(std::move(r));
    }
    if (eofs < want_eof) throw std::runtime_error("timed out reading " + topic);
  }
  RdKafka::TopicPartition::destroy(parts);
  c->close();
  std::stable_sort(out.begin(), out.end(), [](const TopicRecord& a, const TopicRecord& b) {
    return a.partition != b.partition ? a.partition < b.partition : a.offset < b.offset;
  });
  return out;
}

std::vector<std::string> ServiceTopicArgs(int input_partitions, int output_partitions) {
  std::vector<std::string> args = {"--topic", "vehicle.events.raw:" + std::to_string(input_partitions)};
  for (const char* t : {"vehicle.events.dlq", "vehicle.events.late", "vehicle.events.anonymized", "vehicle.releases",
                        "vehicle.counts.dp"}) {
    args.push_back("--topic");
    args.push_back(std::string(t) + ":" + std::to_string(output_partitions));
  }
  // The state changelog (on by default): one partition per input partition.
  args.push_back("--topic");
  args.push_back("vanon.state.changelog:" + std::to_string(input_partitions));
  return args;
}

}  // namespace vanon::testing
