// The scale-out acceptance run: three `vanon run` processes in one consumer
// group on the mock cluster (vanon-kafka), with the state changelog on. While
// a fleet streams in chunks, the group scales 1 -> 3 -> 2, one instance is
// killed (SIGKILL), and a replacement starts with an empty state dir. Every
// instance but the first starts with an empty state dir, so every partition
// that moves is restored from the changelog.
//
// Afterwards an independent check over the output topics, as a downstream
// read_committed consumer sees them, reuses the end-to-end checkers:
// - ReleaseReconstructor (tests/e2e) rebuilds every release of every
//   partition from the records and the test's ground truth and runs the
//   engine's ReleaseChecker (src/engine/checker) over each partition's
//   sequence: one summary per (release, partition), each published event
//   once, m-invariant groups, one signature per vehicle in every release,
//   every valid input event published, suppressed, waiting, unreleased or late;
// - no tuple token or group id in two groups or releases;
// - every vehicle (through the payload seq marker) under one signature across
//   all releases and instances;
// - DP counts of each share in one committed transaction only (the budget is
//   charged once per release);
// - the disclosure attack (tests/e2e/disclosure_attack) leaves every vehicle
//   m candidate values;
// - low watermarks of input, output and changelog topics still 0.
//
// The mock cluster writes no transaction markers: records of a transaction
// the SIGKILL interrupted stay visible. As in ReleaseCrashTest, the committed
// attempt of a share is the one that wrote its summary; the others are
// counted and left out, which is what read_committed does on a real broker.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <thread>

#include "disclosure_attack.h"
#include "fleet_truth.h"
#include "fleet_feed.h"
#include "output_records.h"
#include "release_reconstructor.h"
#include "test_support.h"
#include "topic_reader.h"
#include "truth_values.h"
#include "vanon/config.h"
#include "vanon/fleet/fleet_generator.h"
#include "vanon/kafka/producer.h"
#include "vanon/release/schema_from_config.h"
#include "vanon/vehicle/vin_decoder.h"

namespace vanon::service {
namespace {

using testing::Subprocess;
using testing::TempDir;
using testing::TopicRecord;

constexpr const char* kHmacKey = "scale-out-fleet-hmac-key-0123456789ab";
constexpr int kInputPartitions = 6;
constexpr int kOutputPartitions = 4;
constexpr const char* kChangelog = "vanon.state.changelog";
constexpr const char* kInput = "vehicle.events.raw";
constexpr uint64_t kChunk = 2000;  // messages per streamed chunk
constexpr double kRate = 400;      // messages per second of wall and event time

// VANON_SCALE_OUT_TEST_CHANGELOG=off runs the same scenario without the
// changelog, to see the check fail (shares twice, second signatures).
bool ChangelogOn() {
  const char* v = std::getenv("VANON_SCALE_OUT_TEST_CHANGELOG");
  return v == nullptr || std::string(v) != "off";
}

// Overrides shared by every instance and by the test's own copy of the config.
std::vector<std::string> Overrides(const std::string& bootstrap) {
  return {"kafka.bootstrap=" + bootstrap, "input.max_message_bytes=16384", "privacy.epoch.length_seconds=2",
          "privacy.epoch.allowed_lateness_seconds=1", "privacy.epoch.idle_timeout_seconds=2",
          // A killed member's partitions move once its session expires.
          "kafka.consumer_properties.session.timeout.ms=6000",
          // Overrides cannot append to a list: the seq marker replaces artist.
          "payload.fields.3={path: seq, transform: keep}",
          std::string("state.changelog.enabled=") + (ChangelogOn() ? "true" : "false"),
          std::string("state.changelog.topic=") + kChangelog};
}

std::unique_ptr<Subprocess> StartKafka(std::string* bootstrap) {
  std::vector<std::string> argv = {VANON_KAFKA_BIN, "--brokers", "1"};
  for (const std::string& a : testing::ServiceTopicArgs(kInputPartitions, kOutputPartitions)) argv.push_back(a);
  auto k = std::make_unique<Subprocess>(argv);
  *bootstrap = k->FirstLine(20);
  return k;
}

// One instance: a `vanon run` with its own state dir and metrics port.
struct Instance {
  std::string name;
  TempDir state;
  int port = testing::FreePort();
  std::unique_ptr<Subprocess> process;

  Instance(const std::string& n, const std::string& bootstrap) : name(n) {
    std::vector<std::string> argv = {VANON_BIN, "run", "--config", std::string(VANON_SOURCE_DIR) + "/config/demo.yaml"};
    std::vector<std::string> sets = Overrides(bootstrap);
    sets.push_back("state.dir=" + state.path());
    sets.push_back("http.listen=127.0.0.1:" + std::to_string(port));
    for (const std::string& s : sets) {
      argv.push_back("--set");
      argv.push_back(s);
    }
    process = std::make_unique<Subprocess>(argv,
                                           std::vector<std::string>{std::string("VANON_HMAC_KEY=") + kHmacKey,
                                                                    testing::kStateKeysEnv, "VANON_INSTANCE_ID=" + n},
                                           /*capture_stderr=*/true);
  }
  double Metric(const std::string& series) const { return testing::ScrapeMetric(port, series); }
  double Assigned() const { return std::max(0.0, Metric("vanon_partitions_assigned")); }
  double Releases() const { return Metric("vanon_releases_total"); }
  // Everything it owns is consumed and every epoch closed.
  bool Settled() const {
    return Metric("vanon_consumer_lag_messages{stat=\"sum\"}") == 0 && Metric("vanon_events_buffered") == 0;
  }
};

// The group's members own every partition, each at least one.
bool Owns(const std::vector<const Instance*>& members) {
  double sum = 0;
  for (const Instance* i : members) {
    const double a = i->Assigned();
    if (a <= 0) return false;
    sum += a;
  }
  return sum == kInputPartitions;
}

// The fleet: chunks of messages paced at kRate, event time = wall time, each
// valid message with a unique payload seq and its ground truth.
struct Fleet {
  Fleet(const config::Config& c, const std::string& b) : config(c), bootstrap(b) {}
  const config::Config& config;
  std::string bootstrap;
  std::vector<e2e::TruthMessage> truth;
  std::map<uint64_t, std::string> vin_of_seq;
  std::set<std::string> vins;
  uint64_t seq = 0, total = 0, malformed = 0;

  void Chunk() {
    fleet::VinDecoder table = fleet::VinDecoder::Load(config.vehicle.vin_table);
    fleet::FleetOptions fo;
    fo.vehicles = 300;
    fo.seed = 1414;  // the same fleet in every chunk
    fo.invalid_fraction = 0.01;
    fo.events_per_second = kRate;
    fo.max_message_bytes = 16384;
    const auto t0 = std::chrono::system_clock::now();
    fo.start_ms = std::chrono::duration_cast<std::chrono::milliseconds>(t0.time_since_epoch()).count();
    fleet::FleetGenerator gen(fo, table);
    kafka::Producer producer(bootstrap, {}, {}, {{"message.max.bytes", "4000000"}});
    for (uint64_t i = 0; i < kChunk; ++i) {
      std::this_thread::sleep_until(t0 + std::chrono::microseconds(static_cast<int64_t>(i * 1e6 / kRate)));
      const fleet::FleetMessage& m = gen.Next();
      const int32_t p = e2e::PartitionOfVin(m.key, kInputPartitions);
      std::string value = m.value;
      if (m.expected_reject) {
        ++malformed;
      } else {
        if (!e2e::InsertSeq(&value, ++seq)) throw std::runtime_error("fleet: event without payload");
        vin_of_seq[seq] = m.key;
        truth.push_back(e2e::TruthOf(p, m, value, config, gen.Vehicles()[m.vehicle_index]));
      }
      if (m.key.size() == 17) vins.insert(m.key);
      producer.Produce(kInput, p, m.key, value);
      ++total;
    }
    if (!producer.Flush(60000) || producer.failures() != 0) throw std::runtime_error("fleet: delivery failed");
  }
};

// A chunk streams on its own thread while the test changes the group.
class Streaming {
 public:
  explicit Streaming(Fleet* fleet)
      : thread_([fleet, this] {
          try {
            fleet->Chunk();
          } catch (const std::exception& e) {
            error_ = e.what();
          }
        }) {}
  // Waits for the chunk; its error, or "".
  std::string Join() {
    thread_.join();
    return error_;
  }

 private:
  std::string error_;
  std::thread thread_;
};

// What a read_committed consumer sees: the records of attempts (vanon.attempt
// header) that wrote a summary, plus a count of the other attempts.
struct Committed {
  std::vector<TopicRecord> releases, events, counts;
  std::set<std::string> attempts;
  size_t interrupted = 0;
};

Committed ReadCommitted(const std::string& bootstrap, const config::Config& config) {
  Committed c;
  const auto attempt = [](const TopicRecord& r) {
    return r.headers.count("vanon.attempt") ? r.headers.at("vanon.attempt") : std::string();
  };
  const auto rel = testing::ReadTopic(bootstrap, config.kafka.topics.releases);
  std::set<std::string> all;
  for (const TopicRecord& r : rel) {
    all.insert(attempt(r));
    if (r.value.find("\"type\":\"summary\"") != std::string::npos) c.attempts.insert(attempt(r));
  }
  for (const auto& a : testing::ReadTopic(bootstrap, config.kafka.topics.anonymized)) all.insert(attempt(a));
  c.interrupted = all.size() - c.attempts.size();
  auto keep = [&](std::vector<TopicRecord> records, std::vector<TopicRecord>* out) {
    for (TopicRecord& r : records) {
      if (c.attempts.count(attempt(r))) out->push_back(std::move(r));
    }
  };
  keep(rel, &c.releases);
  keep(testing::ReadTopic(bootstrap, config.kafka.topics.anonymized), &c.events);
  keep(testing::ReadTopic(bootstrap, config.kafka.topics.counts), &c.counts);
  return c;
}

// The reconstructor and ReleaseChecker over every partition's releases.
e2e::E2eReport CheckReleases(const config::Config& config, const Fleet& fleet, const Committed& out,
                             const std::vector<TopicRecord>& late) {
  const engine::Schema schema = release::SchemaFromConfig(config.quasi_identifiers, config.sensitive);
  e2e::ReleaseReconstructor r(config, schema, kInputPartitions);
  for (const e2e::TruthMessage& t : fleet.truth) r.AddTruth(t);
  for (const TopicRecord& l : late) r.AddLateMessage(l.value);
  for (const TopicRecord& e : out.events) r.AddEventRecord(e.value);
  for (const TopicRecord& g : out.releases) r.AddReleaseRecord(g.value);
  return r.Check();
}

// One record per input message (vanon.source.partition/offset headers).
std::vector<TopicRecord> SourceDistinct(std::vector<TopicRecord> records) {
  std::set<std::pair<std::string, std::string>> seen;
  std::vector<TopicRecord> out;
  for (TopicRecord& r : records) {
    if (seen.emplace(r.headers.at("vanon.source.partition"), r.headers.at("vanon.source.offset")).second) {
      out.push_back(std::move(r));
    }
  }
  return out;
}

std::string First(const std::vector<std::string>& lines, size_t n) {
  std::string s;
  for (size_t i = 0; i < lines.size() && i < n; ++i) s += lines[i] + "\n";
  return s;
}

// The scenario's steps and checks, each its own method; the test below
// reads top-down.
class ScaleOutFleet : public ::testing::Test {
 protected:
  void SetUp() override {
    kafka_ = StartKafka(&bootstrap_);
    ASSERT_FALSE(bootstrap_.empty());
    config_ = std::make_unique<config::Config>(
        config::LoadConfig(std::string(VANON_SOURCE_DIR) + "/config/demo.yaml", Overrides(bootstrap_)));
    fleet_ = std::make_unique<Fleet>(*config_, bootstrap_);
  }
  void TearDown() override {
    if (HasFailure()) std::cout << Output({a_.get(), b_.get(), c_.get(), d_.get()});
  }

  static std::string Output(const std::vector<const Instance*>& is) {
    std::string s;
    for (const Instance* i : is) {
      if (i != nullptr) s += "---- " + i->name + "\n" + i->process->Output().substr(0, 15000) + "\n";
    }
    return s;
  }

  // One instance takes every partition and releases a first chunk.
  void StartOne() {
    a_ = std::make_unique<Instance>("scale-a", bootstrap_);
    ASSERT_TRUE(testing::WaitFor(60, [&] { return a_->Assigned() == kInputPartitions; })) << Output({a_.get()});
    ASSERT_EQ(Streaming(fleet_.get()).Join(), "");
    ASSERT_TRUE(testing::WaitFor(120, [&] { return a_->Releases() >= kInputPartitions; })) << Output({a_.get()});
  }

  // 1 -> 3 while a chunk streams: b and c restore what a released.
  void ScaleToThree() {
    Streaming chunk(fleet_.get());
    b_ = std::make_unique<Instance>("scale-b", bootstrap_);
    c_ = std::make_unique<Instance>("scale-c", bootstrap_);
    const bool owned = testing::WaitFor(180, [&] { return Owns({a_.get(), b_.get(), c_.get()}); });
    ASSERT_EQ(chunk.Join(), "");
    ASSERT_TRUE(owned) << Output({a_.get(), b_.get(), c_.get()});
    ASSERT_TRUE(testing::WaitFor(180, [&] { return b_->Releases() >= 1 && c_->Releases() >= 1; }));
    for (const Instance* i : {b_.get(), c_.get()}) {
      if (!ChangelogOn()) break;
      EXPECT_GE(i->Metric("vanon_state_restores_total{outcome=\"restored\"}"), 1)
          << "positive control: " << i->name << " restored partitions from the changelog";
    }
  }

  // 3 -> 2 (c stops cleanly) while a chunk streams.
  void ScaleToTwo() {
    Streaming chunk(fleet_.get());
    c_->process->Signal(SIGTERM);
    const int rc = c_->process->Wait(90);
    const bool owned = testing::WaitFor(180, [&] { return Owns({a_.get(), b_.get()}); });
    ASSERT_EQ(chunk.Join(), "");
    ASSERT_EQ(rc, 0);
    ASSERT_TRUE(owned) << Output({a_.get(), b_.get()});
  }

  // kill -9 b while a chunk streams; d replaces it with an empty state dir.
  void KillAndReplace() {
    Streaming chunk(fleet_.get());
    const bool released = testing::WaitFor(60, [&] { return b_->Releases() >= 2; });
    b_->process->Signal(SIGKILL);
    const int rc = b_->process->Wait(30);
    d_ = std::make_unique<Instance>("scale-d", bootstrap_);
    const bool owned = testing::WaitFor(180, [&] { return Owns({a_.get(), d_.get()}); });
    ASSERT_EQ(chunk.Join(), "");
    ASSERT_TRUE(released);
    ASSERT_EQ(rc, 128 + SIGKILL);
    ASSERT_TRUE(owned) << Output({a_.get(), d_.get()});
  }

  // A last chunk; everything consumed and released; both stop cleanly.
  void DrainAndStop() {
    ASSERT_EQ(Streaming(fleet_.get()).Join(), "");
    ASSERT_TRUE(testing::WaitFor(240, [&] { return Owns({a_.get(), d_.get()}) && a_->Settled() && d_->Settled(); }));
    if (ChangelogOn()) {
      EXPECT_GE(d_->Metric("vanon_state_restores_total{outcome=\"restored\"}"), 1)
          << "positive control: the replacement restored partitions from the changelog";
      // a kept partitions through rebalances: it read only what was ahead
      // of the changelog offset its state holds.
      EXPECT_TRUE(std::regex_search(a_->process->Output(),
                                    std::regex("up to date with the changelog \\(changelog read from offset [1-9]")))
          << "positive control: an incremental check of a kept partition";
    }
    for (Instance* i : {a_.get(), d_.get()}) {
      i->process->Signal(SIGTERM);
      ASSERT_EQ(i->process->Wait(90), 0) << Output({i});
    }
  }

  // Nothing was truncated by the mock; the DLQ and late topics deduplicated.
  // Those two are written outside the release transaction (at least once):
  // a kill -9 after routing but before the next release makes the new owner
  // route those input offsets again; consumers dedupe by the source headers.
  void ReadBack() {
    for (const std::string& t : {std::string(kInput), std::string(kChangelog)}) {
      ASSERT_EQ(testing::SumLowWatermarks(bootstrap_, t, kInputPartitions), 0) << "the mock truncated " << t;
    }
    const config::KafkaTopics& topics = config_->kafka.topics;
    for (const std::string& t : {topics.anonymized, topics.releases, topics.counts, topics.late}) {
      ASSERT_EQ(testing::SumLowWatermarks(bootstrap_, t, kOutputPartitions), 0) << "the mock truncated " << t;
    }
    ASSERT_EQ(testing::ReadTopic(bootstrap_, kInput).size(), fleet_->total);
    const std::vector<TopicRecord> dlq = SourceDistinct(testing::ReadTopic(bootstrap_, topics.dlq));
    late_ = SourceDistinct(testing::ReadTopic(bootstrap_, topics.late));
    EXPECT_EQ(dlq.size(), fleet_->malformed) << "every malformed message in the DLQ";
    out_ = ReadCommitted(bootstrap_, *config_);
    std::cout << "fleet: " << fleet_->total << " messages (" << fleet_->malformed << " malformed, " << dlq.size()
              << " distinct in the DLQ); committed attempts " << out_.attempts.size() << ", interrupted (left out) "
              << out_.interrupted << "\n";
  }

  // Releases, signatures within partitions, accounting: the e2e checker.
  void CheckReleasesAndAccounting() {
    const e2e::E2eReport report = CheckReleases(*config_, *fleet_, out_, late_);
    EXPECT_TRUE(report.violations.empty()) << report.violations.size() << " violations:\n"
                                           << First(report.violations, 20);
    uint64_t published = 0, suppressed = 0, late = 0, waiting = 0, summary_events = 0;
    for (const auto& [p, acc] : report.partitions) {
      published += acc.published_events;
      summary_events += acc.summary_events;
      suppressed += acc.suppressed_events;
      late += acc.late_events;
      waiting += acc.waiting_events + acc.unreleased_events;
      partition_releases_ += acc.releases;
      EXPECT_GE(acc.releases, 4u) << "partition " << p << " released across the scaling steps";
    }
    const uint64_t valid = fleet_->truth.size();
    EXPECT_EQ(report.partitions.size(), static_cast<size_t>(kInputPartitions));
    EXPECT_EQ(published + suppressed + late + waiting, valid) << "every valid input event accounted";
    EXPECT_EQ(summary_events, published);
    EXPECT_GT(published, valid / 3) << "positive control: a meaningful share was published";
    std::cout << "valid " << valid << ": published " << published << ", suppressed " << suppressed << ", late " << late
              << ", waiting/unreleased " << waiting << "; " << partition_releases_ << " partition releases\n";
  }

  // Group ids and tuple tokens each in one group; one signature per vehicle
  // across all releases and instances.
  void CheckGroupsTokensAndSignatures() {
    std::string error;
    std::map<std::string, int> group_records;
    std::map<std::string, std::set<std::string>> sig_of_group;
    for (const TopicRecord& r : out_.releases) {
      auto rec = e2e::ParseReleaseRecord(r.value, &error);
      ASSERT_TRUE(rec) << error;
      if (rec->is_summary) continue;
      ++group_records[rec->group.group];
      sig_of_group[rec->group.group] = {rec->group.sensitive.begin(), rec->group.sensitive.end()};
      groups_.push_back(std::move(rec->group));
    }
    std::map<std::string, std::set<std::string>> groups_of_token;
    std::map<std::string, std::set<std::set<std::string>>> sigs_of_vin;
    for (const TopicRecord& r : out_.events) {
      auto e = e2e::ParseEventRecord(r.value, &error);
      ASSERT_TRUE(e) << error;
      ASSERT_TRUE(e->seq && fleet_->vin_of_seq.count(*e->seq)) << "an event without a known seq";
      groups_of_token[e->tuple].insert(e->group + "@" + std::to_string(e->release));
      auto g = sig_of_group.find(e->group);
      ASSERT_NE(g, sig_of_group.end()) << "an event's group has no group record";
      sigs_of_vin[fleet_->vin_of_seq.at(*e->seq)].insert(g->second);
      events_.push_back(std::move(*e));
    }
    int groups_reused = 0, tokens_reused = 0, two_signatures = 0;
    for (const auto& [g, n] : group_records) groups_reused += n > 1;
    for (const auto& [t, gs] : groups_of_token) tokens_reused += gs.size() > 1;
    for (const auto& [v, sigs] : sigs_of_vin) two_signatures += sigs.size() > 1;
    EXPECT_EQ(groups_reused, 0) << "group ids published in more than one group record";
    EXPECT_EQ(tokens_reused, 0) << "tuple tokens in more than one group or release";
    EXPECT_EQ(two_signatures, 0) << "vehicles under more than one signature (of " << sigs_of_vin.size() << ")";
    std::cout << "groups " << group_records.size() << ", tokens " << groups_of_token.size() << ", vehicles "
              << sigs_of_vin.size() << " (" << two_signatures << " with two signatures)\n";
  }

  // DP: each share's counts in exactly the transaction that published it.
  void CheckDpOncePerShare() {
    std::map<std::string, std::set<std::string>> dp_attempts;  // "release/partition" -> attempts
    for (const TopicRecord& r : out_.counts) dp_attempts[r.key].insert(r.headers.at("vanon.attempt"));
    int dp_twice = 0;
    for (const auto& [key, attempts] : dp_attempts) dp_twice += attempts.size() > 1;
    EXPECT_EQ(dp_attempts.size(), partition_releases_) << "every partition release has its DP counts";
    EXPECT_EQ(dp_twice, 0) << "shares whose DP counts were published by two transactions";
  }

  // The consumer-side attack over the same records: m candidates per vehicle.
  void CheckDisclosureAttack() {
    const engine::Schema schema = release::SchemaFromConfig(config_->quasi_identifiers, config_->sensitive);
    const e2e::TruthValues values(*config_, schema);
    std::map<uint64_t, const e2e::TruthMessage*> by_seq;
    for (const e2e::TruthMessage& t : fleet_->truth) by_seq[*e2e::SeqOfPayload(t.payload_json)] = &t;
    std::set<std::pair<std::string, int64_t>> seen;
    std::vector<e2e::Target> targets;
    for (const e2e::EventRecord& e : events_) {
      const e2e::TruthMessage& t = *by_seq.at(*e.seq);
      if (!seen.emplace(t.vin, e.release).second) continue;
      auto qi = values.EncodeQi(t.qi);
      ASSERT_TRUE(qi.has_value());
      targets.push_back({t.vin, t.partition, e.release, *qi});
    }
    const size_t m = static_cast<size_t>(config_->privacy.m);
    const e2e::AttackReport attack = e2e::RunDisclosureAttack(schema, events_, groups_, targets, m);
    EXPECT_EQ(attack.below_m, 0u) << First(attack.examples, 5);
    EXPECT_EQ(attack.vehicles_below_m, 0u);
    std::cout << "attack: " << attack.vehicles << " vehicles, min " << attack.min_candidates << " candidates, "
              << attack.vehicles_below_m << " below m after intersection\n";
  }

  // The changelog holds HMACs, codes and ids, never a raw VIN.
  void CheckChangelogHasNoVin() {
    std::string changelog;
    for (const TopicRecord& r : testing::ReadTopic(bootstrap_, kChangelog)) changelog += r.key + r.value;
    size_t raw = 0;
    for (const std::string& vin : fleet_->vins) raw += changelog.find(vin) != std::string::npos;
    if (ChangelogOn()) {
      EXPECT_GT(changelog.size(), 0u);
    }
    EXPECT_EQ(raw, 0u) << "raw VINs in the changelog";
  }

  std::string bootstrap_;
  std::unique_ptr<Subprocess> kafka_;
  std::unique_ptr<config::Config> config_;
  std::unique_ptr<Fleet> fleet_;
  std::unique_ptr<Instance> a_, b_, c_, d_;
  std::vector<TopicRecord> late_;
  Committed out_;
  uint64_t partition_releases_ = 0;
  std::vector<e2e::GroupRecord> groups_;
  std::vector<e2e::EventRecord> events_;
};

TEST_F(ScaleOutFleet, ThreeInstancesScaleKillAndEmptyStateKeepReleasesOnceAndSignaturesFixed) {
  ASSERT_NO_FATAL_FAILURE(StartOne());
  ASSERT_NO_FATAL_FAILURE(ScaleToThree());
  ASSERT_NO_FATAL_FAILURE(ScaleToTwo());
  ASSERT_NO_FATAL_FAILURE(KillAndReplace());
  ASSERT_NO_FATAL_FAILURE(DrainAndStop());
  ASSERT_NO_FATAL_FAILURE(ReadBack());
  CheckReleasesAndAccounting();
  ASSERT_NO_FATAL_FAILURE(CheckGroupsTokensAndSignatures());
  CheckDpOncePerShare();
  CheckDisclosureAttack();
  CheckChangelogHasNoVin();
}

}  // namespace
}  // namespace vanon::service
