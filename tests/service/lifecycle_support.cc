#include "lifecycle_support.h"

#include "topic_reader.h"

namespace vanon::testing {

std::unique_ptr<Subprocess> StartInstance(const InstanceOptions& o) {
  std::vector<std::string> argv = {VANON_BIN, "run", "--config", std::string(VANON_SOURCE_DIR) + "/config/demo.yaml"};
  std::vector<std::string> sets = {"kafka.bootstrap=" + o.bootstrap, "input.max_message_bytes=16384",
                                   "state.dir=" + o.state_dir, "http.listen=127.0.0.1:" + std::to_string(o.port),
                                   "privacy.epoch.length_seconds=2", "privacy.epoch.allowed_lateness_seconds=1",
                                   "privacy.epoch.idle_timeout_seconds=2",
                                   // A stopped or killed member's partitions
                                   // move once its session expires.
                                   "kafka.consumer_properties.session.timeout.ms=6000",
                                   // Overrides cannot append to a list: the
                                   // seq marker replaces the artist entry
                                   // (dropped by default anyway).
                                   "payload.fields.3={path: seq, transform: keep}",
                                   std::string("state.changelog.enabled=") + (o.changelog ? "true" : "false"),
                                   std::string("state.changelog.topic=") + kLifecycleChangelog};
  sets.insert(sets.end(), o.sets.begin(), o.sets.end());
  for (const std::string& s : sets) {
    argv.push_back("--set");
    argv.push_back(s);
  }
  std::vector<std::string> env = {std::string("VANON_HMAC_KEY=") + kLifecycleHmacKey, kStateKeysEnv,
                                  "VANON_INSTANCE_ID=" + o.instance};
  env.insert(env.end(), o.env.begin(), o.env.end());
  return std::make_unique<Subprocess>(argv, env, /*capture_stderr=*/true);
}

std::unique_ptr<Subprocess> StartLifecycleKafka(int input_partitions, int output_partitions, std::string* bootstrap) {
  std::vector<std::string> argv = {VANON_KAFKA_BIN, "--brokers", "1"};
  for (const std::string& a : ServiceTopicArgs(input_partitions, output_partitions)) argv.push_back(a);
  auto k = std::make_unique<Subprocess>(argv);
  *bootstrap = k->FirstLine(20);
  return k;
}

bool Settled(int port) {
  return ScrapeMetric(port, "vanon_consumer_lag_messages{stat=\"sum\"}") == 0 &&
         ScrapeMetric(port, "vanon_events_buffered") == 0;
}

}  // namespace vanon::testing
