// Issue 14's acceptance run: three `vanon run` processes in one consumer
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

namespace vanon {
namespace {

using testing::Subprocess;
using testing::TempDir;
using testing::TopicRecord;

constexpr const char* kHmacKey = "scale-out-fleet-hmac-key-0123456789ab";
constexpr int kInputPartitions = 6;
constexpr int kOutputPartitions = 4;
constexpr const char* kChangelog = "vanon.state.changelog";
constexpr const char* kInput = "vehicle.events.raw";
constexpr uint64_t kChunk = 2000;      // messages per streamed chunk
constexpr double kRate = 400;          // messages per second of wall and event time

// VANON_SCALE_OUT_TEST_CHANGELOG=off runs the same scenario without the
// changelog, to see the check fail (shares twice, second signatures).
bool ChangelogOn() {
  const char* v = std::getenv("VANON_SCALE_OUT_TEST_CHANGELOG");
  return v == nullptr || std::string(v) != "off";
}

// Overrides shared by every instance and by the test's own copy of the config.
std::vector<std::string> Overrides(const std::string& bootstrap) {
  return {"kafka.bootstrap=" + bootstrap,
          "input.max_message_bytes=16384",
          "privacy.epoch.length_seconds=2",
          "privacy.epoch.allowed_lateness_seconds=1",
          "privacy.epoch.idle_timeout_seconds=2",
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
    std::vector<std::string> argv = {VANON_BIN, "run", "--config",
                                     std::string(VANON_SOURCE_DIR) + "/config/demo.yaml"};
    std::vector<std::string> sets = Overrides(bootstrap);
    sets.push_back("state.dir=" + state.path());
    sets.push_back("http.listen=127.0.0.1:" + std::to_string(port));
    for (const std::string& s : sets) {
      argv.push_back("--set");
      argv.push_back(s);
    }
    process = std::make_unique<Subprocess>(
        argv, std::vector<std::string>{std::string("VANON_HMAC_KEY=") + kHmacKey, "VANON_INSTANCE_ID=" + n},
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
  Fleet(const Config& c, const std::string& b) : config(c), bootstrap(b) {}
  const Config& config;
  std::string bootstrap;
  std::vector<e2e::TruthMessage> truth;
  std::map<uint64_t, std::string> vin_of_seq;
  std::set<std::string> vins;
  uint64_t seq = 0, total = 0, malformed = 0;

  void Chunk() {
    VinDecoder table = VinDecoder::Load(config.vehicle.vin_table);
    FleetOptions fo;
    fo.vehicles = 300;
    fo.seed = 1414;  // the same fleet in every chunk
    fo.invalid_fraction = 0.01;
    fo.events_per_second = kRate;
    fo.max_message_bytes = 16384;
    const auto t0 = std::chrono::system_clock::now();
    fo.start_ms = std::chrono::duration_cast<std::chrono::milliseconds>(t0.time_since_epoch()).count();
    FleetGenerator gen(fo, table);
    Producer producer(bootstrap, {}, {}, {{"message.max.bytes", "4000000"}});
    for (uint64_t i = 0; i < kChunk; ++i) {
      std::this_thread::sleep_until(t0 + std::chrono::microseconds(static_cast<int64_t>(i * 1e6 / kRate)));
      const FleetMessage& m = gen.Next();
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
  explicit Streaming(Fleet* fleet) : thread_([fleet, this] {
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

Committed ReadCommitted(const std::string& bootstrap, const Config& config) {
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
e2e::E2eReport CheckReleases(const Config& config, const Fleet& fleet, const Committed& out,
                             const std::vector<TopicRecord>& late) {
  const Schema schema = SchemaFromConfig(config);
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

TEST(ScaleOutFleet, ThreeInstancesScaleKillAndEmptyStateKeepReleasesOnceAndSignaturesFixed) {
  std::string bootstrap;
  auto kafka = StartKafka(&bootstrap);
  ASSERT_FALSE(bootstrap.empty());
  const Config config = LoadConfig(std::string(VANON_SOURCE_DIR) + "/config/demo.yaml", Overrides(bootstrap));
  Fleet fleet(config, bootstrap);
  auto output = [](const std::vector<const Instance*>& is) {
    std::string s;
    for (const Instance* i : is) s += "---- " + i->name + "\n" + i->process->Output().substr(0, 15000) + "\n";
    return s;
  };

  // 1 instance.
  Instance a("scale-a", bootstrap);
  ASSERT_TRUE(testing::WaitFor(60, [&] { return a.Assigned() == kInputPartitions; })) << output({&a});
  ASSERT_EQ(Streaming(&fleet).Join(), "");
  ASSERT_TRUE(testing::WaitFor(120, [&] { return a.Releases() >= kInputPartitions; })) << output({&a});

  // 1 -> 3, while a chunk streams: b and c restore what a released.
  Streaming s2(&fleet);
  Instance b("scale-b", bootstrap), c("scale-c", bootstrap);
  ASSERT_TRUE(testing::WaitFor(180, [&] { return Owns({&a, &b, &c}); })) << output({&a, &b, &c});
  ASSERT_EQ(s2.Join(), "");
  ASSERT_TRUE(testing::WaitFor(180, [&] { return b.Releases() >= 1 && c.Releases() >= 1; })) << output({&b, &c});

  for (const Instance* i : {&b, &c}) {
    if (!ChangelogOn()) break;
    EXPECT_GE(i->Metric("vanon_state_restores_total{outcome=\"restored\"}"), 1)
        << "positive control: " << i->name << " restored partitions from the changelog";
  }

  // 3 -> 2 (c stops cleanly), while a chunk streams.
  Streaming s3(&fleet);
  c.process->Signal(SIGTERM);
  ASSERT_EQ(c.process->Wait(90), 0) << output({&c});
  ASSERT_TRUE(testing::WaitFor(180, [&] { return Owns({&a, &b}); })) << output({&a, &b});
  ASSERT_EQ(s3.Join(), "");

  // kill -9 b while a chunk streams; d replaces it with an empty state dir.
  Streaming s4(&fleet);
  ASSERT_TRUE(testing::WaitFor(60, [&] { return b.Releases() >= 2; })) << output({&b});
  b.process->Signal(SIGKILL);
  ASSERT_EQ(b.process->Wait(30), 128 + SIGKILL);
  Instance d("scale-d", bootstrap);
  ASSERT_TRUE(testing::WaitFor(180, [&] { return Owns({&a, &d}); })) << output({&a, &d});
  ASSERT_EQ(s4.Join(), "");

  // A last chunk, then everything consumed and released.
  ASSERT_EQ(Streaming(&fleet).Join(), "");
  ASSERT_TRUE(testing::WaitFor(240, [&] { return Owns({&a, &d}) && a.Settled() && d.Settled(); }))
      << output({&a, &d});
  if (ChangelogOn()) {
    EXPECT_GE(d.Metric("vanon_state_restores_total{outcome=\"restored\"}"), 1)
        << "positive control: the replacement restored partitions from the changelog";
    // a kept partitions through rebalances: it read only what was ahead of
    // the changelog offset its state holds.
    EXPECT_TRUE(std::regex_search(a.process->Output(), std::regex("up to date with the changelog \\(changelog read "
                                                                    "from offset [1-9]")))
        << "positive control: an incremental check of a kept partition";
  }
  for (Instance* i : {&a, &d}) {
    i->process->Signal(SIGTERM);
    ASSERT_EQ(i->process->Wait(90), 0) << output({i});
  }
  for (const std::string& t : {std::string(kInput), std::string(kChangelog)}) {
    ASSERT_EQ(testing::SumLowWatermarks(bootstrap, t, kInputPartitions), 0) << "the mock cluster truncated " << t;
  }
  for (const std::string& t : {config.kafka.topics.anonymized, config.kafka.topics.releases,
                               config.kafka.topics.counts, config.kafka.topics.late}) {
    ASSERT_EQ(testing::SumLowWatermarks(bootstrap, t, kOutputPartitions), 0) << "the mock cluster truncated " << t;
  }
  ASSERT_EQ(testing::ReadTopic(bootstrap, kInput).size(), fleet.total);
  // The DLQ and the late topic are written outside the release transaction
  // (at least once): a kill -9 after routing but before the next release
  // makes the new owner route those input offsets again. Consumers dedupe by
  // the source headers; the count of distinct source offsets is exact.
  const std::vector<TopicRecord> dlq = SourceDistinct(testing::ReadTopic(bootstrap, config.kafka.topics.dlq));
  const std::vector<TopicRecord> late = SourceDistinct(testing::ReadTopic(bootstrap, config.kafka.topics.late));
  EXPECT_EQ(dlq.size(), fleet.malformed) << "every malformed message in the DLQ";

  const Committed out = ReadCommitted(bootstrap, config);
  std::cout << "fleet: " << fleet.total << " messages (" << fleet.malformed << " malformed, " << dlq.size()
            << " distinct in the DLQ); committed attempts "
            << out.attempts.size() << ", interrupted (left out) " << out.interrupted << "\n";

  // Releases, signatures within partitions, accounting: the e2e checker.
  const e2e::E2eReport report = CheckReleases(config, fleet, out, late);
  EXPECT_TRUE(report.violations.empty()) << report.violations.size() << " violations:\n"
                                         << First(report.violations, 20);
  uint64_t published = 0, suppressed = 0, late_events = 0, waiting = 0, releases = 0, summary_events = 0;
  for (const auto& [p, acc] : report.partitions) {
    published += acc.published_events;
    summary_events += acc.summary_events;
    suppressed += acc.suppressed_events;
    late_events += acc.late_events;
    waiting += acc.waiting_events + acc.unreleased_events;
    releases += acc.releases;
    EXPECT_GE(acc.releases, 4u) << "partition " << p << " released across the scaling steps";
  }
  EXPECT_EQ(report.partitions.size(), static_cast<size_t>(kInputPartitions));
  EXPECT_EQ(published + suppressed + late_events + waiting, fleet.truth.size()) << "every valid input event accounted";
  EXPECT_EQ(summary_events, published);
  EXPECT_GT(published, fleet.truth.size() / 3) << "positive control: a meaningful share was published";
  std::cout << "valid " << fleet.truth.size() << ": published " << published << ", suppressed " << suppressed
            << ", late " << late_events << ", waiting/unreleased " << waiting << "; " << releases << " partition releases\n";

  // Groups and tuple tokens, each in one group record / one group.
  std::string error;
  std::map<std::string, int> group_records;
  std::map<std::string, std::set<std::string>> sig_of_group;
  std::vector<e2e::GroupRecord> groups;
  for (const TopicRecord& r : out.releases) {
    auto rec = e2e::ParseReleaseRecord(r.value, &error);
    ASSERT_TRUE(rec) << error;
    if (rec->is_summary) continue;
    ++group_records[rec->group.group];
    sig_of_group[rec->group.group] = {rec->group.sensitive.begin(), rec->group.sensitive.end()};
    groups.push_back(std::move(rec->group));
  }
  int groups_reused = 0;
  for (const auto& [g, n] : group_records) groups_reused += n > 1;
  EXPECT_EQ(groups_reused, 0) << "group ids published in more than one group record";
  std::map<std::string, std::set<std::string>> groups_of_token;
  std::map<std::string, std::set<std::set<std::string>>> sigs_of_vin;
  std::vector<e2e::EventRecord> events;
  for (const TopicRecord& r : out.events) {
    auto e = e2e::ParseEventRecord(r.value, &error);
    ASSERT_TRUE(e) << error;
    ASSERT_TRUE(e->seq && fleet.vin_of_seq.count(*e->seq)) << "an event without a known seq";
    groups_of_token[e->tuple].insert(e->group + "@" + std::to_string(e->release));
    auto g = sig_of_group.find(e->group);
    ASSERT_NE(g, sig_of_group.end()) << "an event's group has no group record";
    sigs_of_vin[fleet.vin_of_seq.at(*e->seq)].insert(g->second);
    events.push_back(std::move(*e));
  }
  int tokens_reused = 0, two_signatures = 0;
  for (const auto& [t, gs] : groups_of_token) tokens_reused += gs.size() > 1;
  for (const auto& [v, s] : sigs_of_vin) two_signatures += s.size() > 1;
  EXPECT_EQ(tokens_reused, 0) << "tuple tokens in more than one group or release";
  EXPECT_EQ(two_signatures, 0) << "vehicles under more than one signature (of " << sigs_of_vin.size() << ")";

  // DP: each share's counts in exactly the transaction that published it.
  std::map<std::string, std::set<std::string>> dp_attempts;  // "release/partition" -> attempts
  for (const TopicRecord& r : out.counts) dp_attempts[r.key].insert(r.headers.at("vanon.attempt"));
  int dp_twice = 0;
  for (const auto& [key, attempts] : dp_attempts) dp_twice += attempts.size() > 1;
  EXPECT_EQ(dp_attempts.size(), releases) << "every partition release has its DP counts";
  EXPECT_EQ(dp_twice, 0) << "shares whose DP counts were published by two transactions";

  // The consumer-side attack over the same records: m candidates per vehicle.
  const Schema schema = SchemaFromConfig(config);
  const e2e::TruthValues values(config, schema);
  std::map<uint64_t, const e2e::TruthMessage*> by_seq;
  for (const e2e::TruthMessage& t : fleet.truth) by_seq[*e2e::SeqOfPayload(t.payload_json)] = &t;
  std::set<std::pair<std::string, int64_t>> seen;
  std::vector<e2e::Target> targets;
  for (const e2e::EventRecord& e : events) {
    const e2e::TruthMessage& t = *by_seq.at(*e.seq);
    if (!seen.emplace(t.vin, e.release).second) continue;
    auto qi = values.EncodeQi(t.qi);
    ASSERT_TRUE(qi.has_value());
    targets.push_back({t.vin, t.partition, e.release, *qi});
  }
  const size_t m = static_cast<size_t>(config.privacy.m);
  const e2e::AttackReport attack = e2e::RunDisclosureAttack(schema, events, groups, targets, m);
  EXPECT_EQ(attack.below_m, 0u) << First(attack.examples, 5);
  EXPECT_EQ(attack.vehicles_below_m, 0u);
  std::cout << "groups " << group_records.size() << ", tokens " << groups_of_token.size() << ", vehicles "
            << sigs_of_vin.size() << " (" << two_signatures << " with two signatures), DP shares "
            << dp_attempts.size() << "; attack: " << attack.vehicles << " vehicles, min " << attack.min_candidates
            << " candidates\n";

  // The changelog holds HMACs, codes and ids, never a raw VIN.
  std::string changelog;
  for (const TopicRecord& r : testing::ReadTopic(bootstrap, kChangelog)) changelog += r.key + r.value;
  size_t raw = 0;
  for (const std::string& vin : fleet.vins) raw += changelog.find(vin) != std::string::npos;
  if (ChangelogOn()) {
    EXPECT_GT(changelog.size(), 0u);
  }
  EXPECT_EQ(raw, 0u) << "raw VINs in the changelog";
  if (HasFailure()) std::cout << output({&a, &b, &c, &d});
}

}  // namespace
}  // namespace vanon
