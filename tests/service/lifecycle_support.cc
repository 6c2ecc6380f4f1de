#include "lifecycle_support.h"

#include <utility>

#include "topic_reader.h"

namespace vanon::testing {

std::unique_ptr<Subprocess> StartServiceKafka(int input_partitions, int output_partitions, std::string* bootstrap,
                                              const std::vector<std::string>& more_topics) {
  std::vector<std::string> argv = {VANON_KAFKA_BIN, "--brokers", "1"};
  for (const std::string& t : more_topics) {
    argv.push_back("--topic");
    argv.push_back(t);
  }
  for (const std::string& a : ServiceTopicArgs(input_partitions, output_partitions)) argv.push_back(a);
  auto k = std::make_unique<Subprocess>(argv);
  *bootstrap = k->FirstLine(20);
  return k;
}

std::unique_ptr<Subprocess> StartRun(const RunOptions& o) {
  std::vector<std::string> argv = {VANON_BIN, "run", "--config", std::string(VANON_SOURCE_DIR) + "/config/demo.yaml"};
  std::vector<std::string> sets = {"kafka.bootstrap=" + o.bootstrap,
                                   "input.max_message_bytes=16384",
                                   "state.dir=" + o.state_dir,
                                   "http.listen=127.0.0.1:" + std::to_string(o.port),
                                   "privacy.epoch.length_seconds=2",
                                   "privacy.epoch.allowed_lateness_seconds=1",
                                   "privacy.epoch.idle_timeout_seconds=2"};
  sets.insert(sets.end(), o.sets.begin(), o.sets.end());
  for (const std::string& s : sets) {
    argv.push_back("--set");
    argv.push_back(s);
  }
  std::vector<std::string> env = {"VANON_HMAC_KEY=" + o.hmac_key, o.state_keys_env, "VANON_INSTANCE_ID=" + o.instance};
  env.insert(env.end(), o.env.begin(), o.env.end());
  return std::make_unique<Subprocess>(argv, env, /*capture_stderr=*/true);
}

std::unique_ptr<Subprocess> StartInstance(const InstanceOptions& o) {
  RunOptions r{o.bootstrap, o.state_dir, o.port, kLifecycleHmacKey, o.instance, kStateKeysEnv, {}, o.env};
  r.sets = {// A stopped or killed member's partitions move once its
            // session expires.
            "kafka.consumer_properties.session.timeout.ms=6000",
            // Overrides cannot append to a list: the seq marker replaces
            // the artist entry (dropped by default anyway).
            "payload.fields.3={path: seq, transform: keep}",
            std::string("state.changelog.enabled=") + (o.changelog ? "true" : "false"),
            std::string("state.changelog.topic=") + kLifecycleChangelog};
  r.sets.insert(r.sets.end(), o.sets.begin(), o.sets.end());
  return StartRun(r);
}

std::unique_ptr<Subprocess> StartLifecycleKafka(int input_partitions, int output_partitions, std::string* bootstrap) {
  return StartServiceKafka(input_partitions, output_partitions, bootstrap);
}

bool Settled(int port) {
  return ScrapeMetric(port, "vanon_consumer_lag_messages{stat=\"sum\"}") == 0 &&
         ScrapeMetric(port, "vanon_events_buffered") == 0;
}

bool ReleasedAndSettled(int port, int partitions, double releases) {
  return ScrapeMetric(port, "vanon_partitions_assigned") == partitions &&
         ScrapeMetric(port, "vanon_releases_total") >= releases && Settled(port);
}

LifecycleRig::LifecycleRig(int input_partitions) { kafka = StartServiceKafka(input_partitions, 2, &bootstrap); }

LifecycleRig::LifecycleRig(std::string cluster_bootstrap) : bootstrap(std::move(cluster_bootstrap)) {}

InstanceOptions LifecycleRig::Instance(const std::string& instance, const TempDir& state, bool changelog) const {
  return InstanceOptions{bootstrap, instance, state.path(), FreePort(), changelog, {}, {}};
}

}  // namespace vanon::testing
