// The service in-process on the mock cluster. A churning
// fleet (with a seq in every payload, some malformed messages and a few
// deliberately late ones) goes into three input partitions; once the
// service has released everything, both output topics are read back and
// rebuilt against the ground truth; the independent checker must find no
// violation over at least six releases, and the service's own counters must
// match what the records show: produced = released + suppressed + late +
// rejected, per partition and exactly.
#include <gtest/gtest.h>

#include <simdjson.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <thread>
#include <tuple>

#include "fleet_truth.h"
#include "disclosure_attack.h"
#include "output_records.h"
#include "release_reconstructor.h"
#include "truth_values.h"
#include "test_support.h"
#include "topic_reader.h"
#include "vanon/fleet/fleet_generator.h"
#include "vanon/kafka/mock_cluster.h"
#include "vanon/kafka/producer.h"
#include "vanon/release/schema_from_config.h"
#include "vanon/service/service.h"
#include "vanon/state/state_store.h"
#include "vanon/vehicle/vin_decoder.h"

namespace vanon::e2e {
namespace {

constexpr int32_t kInputPartitions = 3;
constexpr int64_t kEventSeconds = 8;  // one-second epochs with events
constexpr double kEventsPerSecond = 2000;
constexpr int kLateMessages = 5;

struct Produced {
  std::vector<TruthMessage> truth;                 // valid messages, late ones included
  std::map<int32_t, uint64_t> messages, rejected;  // per partition
  uint64_t malformed = 0;
};

Produced ProduceFleet(const config::Config& config, const std::string& bootstrap, int64_t start_ms) {
  fleet::VinDecoder table = fleet::VinDecoder::Load(config.vehicle.vin_table);
  fleet::FleetOptions f;
  f.vehicles = 300;
  f.seed = 23;
  f.invalid_fraction = 0.01;
  f.max_message_bytes = static_cast<size_t>(config.input.max_message_bytes);
  f.events_per_second = kEventsPerSecond;
  f.churn = 0.2;
  f.churn_epoch_ms = config.privacy.epoch.length_seconds * 1000;
  f.start_ms = start_ms;
  fleet::FleetGenerator gen(f, table);
  kafka::Producer producer(bootstrap, {}, {}, {{"message.max.bytes", "4000000"}});
  Produced out;
  uint64_t seq = 0;
  auto send = [&](int32_t p, const std::string& key, const std::string& value) {
    producer.Produce(config.kafka.topics.input, p, key, value);
    ++out.messages[p];
  };
  const auto total = static_cast<uint64_t>(kEventSeconds * kEventsPerSecond);
  for (uint64_t i = 0; i < total; ++i) {
    const fleet::FleetMessage& m = gen.Next();
    const int32_t p = PartitionOfVin(m.key, kInputPartitions);
    std::string value = m.value;
    if (m.expected_reject) {
      ++out.malformed;
      ++out.rejected[p];
    } else {
      if (!InsertSeq(&value, ++seq)) throw std::runtime_error("event without payload");
      out.truth.push_back(TruthOf(p, m, value, config, gen.Vehicles()[m.vehicle_index]));
    }
    send(p, m.key, value);
  }
  // Valid events of the first epoch, sent after everything else: their
  // partition's watermark is seconds past that epoch, so they are late.
  for (int i = 0; i < kLateMessages; ++i) {
    const fleet::FleetVehicle& v = gen.Vehicles()[static_cast<size_t>(i) * 7];
    const int32_t p = PartitionOfVin(v.vin, kInputPartitions);
    const int64_t ts = start_ms + 100 + i;
    const std::string value =
        "{\"vin\":\"" + v.vin + "\",\"trip_id\":\"late-" + std::to_string(i) + "\",\"ts\":" + std::to_string(ts) +
        ",\"event\":\"touchscreen_used\",\"payload\":{\"seq\":" + std::to_string(++seq) + ",\"screen\":\"nav\"}}";
    fleet::FleetMessage m;
    m.key = v.vin;
    m.ts_ms = ts;
    out.truth.push_back(TruthOf(p, m, value, config, v));
    send(p, v.vin, value);
  }
  if (!producer.Flush(60000) || producer.failures() != 0) {
    throw std::runtime_error("produce failed: " + producer.last_error());
  }
  return out;
}

// Records of the release transactions that wrote a summary: the mock
// cluster writes no transaction markers, so an aborted attempt would show.
struct Output {
  std::vector<std::string> events, releases;
  size_t other_attempts = 0;
};

Output ReadOutput(const std::string& bootstrap, const config::Config& config) {
  std::map<std::string, std::vector<const testing::TopicRecord*>> by_attempt;
  std::set<std::string> committed;
  const auto rel = testing::ReadTopic(bootstrap, config.kafka.topics.releases);
  const auto anon = testing::ReadTopic(bootstrap, config.kafka.topics.anonymized);
  Output out;
  for (const auto& r : rel) {
    const std::string attempt = r.headers.count("vanon.attempt") ? r.headers.at("vanon.attempt") : "";
    by_attempt[attempt].push_back(&r);
    if (r.value.find("\"type\":\"summary\"") != std::string::npos) committed.insert(attempt);
  }
  for (const auto& [attempt, records] : by_attempt) {
    if (!committed.count(attempt)) {
      ++out.other_attempts;
      continue;
    }
    for (const auto* r : records) out.releases.push_back(r->value);
  }
  for (const auto& r : anon) {
    const std::string attempt = r.headers.count("vanon.attempt") ? r.headers.at("vanon.attempt") : "";
    if (committed.count(attempt)) out.events.push_back(r.value);
  }
  return out;
}

// One run of the service over the fleet, shared by the tests below.
struct ServiceRun {
  std::string failure;  // set when the run itself went wrong
  std::unique_ptr<kafka::MockCluster> cluster;
  testing::TempDir state;
  config::Config config;
  Produced in;
  uint64_t produced = 0;
  Output out;
};

const ServiceRun& TheRun() {
  static const ServiceRun* run = [] {
    auto* r = new ServiceRun;
    r->cluster = std::make_unique<kafka::MockCluster>(1);
    kafka::MockCluster& cluster = *r->cluster;
    const std::string bootstrap = cluster.Bootstrap();
    testing::TempDir& state = r->state;
    config::Config& config = r->config;
    config = config::LoadConfig(std::string(VANON_SOURCE_DIR) + "/config/demo.yaml",
                                {"kafka.bootstrap=" + bootstrap, "state.dir=" + state.path(),
                                 "http.listen=127.0.0.1:" + std::to_string(testing::FreePort()),
                                 "input.max_message_bytes=16384", "privacy.epoch.length_seconds=1",
                                 "privacy.epoch.allowed_lateness_seconds=1", "privacy.epoch.idle_timeout_seconds=2",
                                 // Overrides cannot append to a list; demo.yaml's
                                 // artist rule only repeats the default (drop).
                                 "payload.fields.3={path: seq, transform: keep}",
                                 // Noise small enough that the DP histogram
                                 // test sees a misplaced count.
                                 "dp.epsilon_per_release=10", "dp.budget.epsilon=1000000",
                                 // demo.yaml's artist histogram, per engine type.
                                 "dp.queries.3={name: vehicles_by_artist, count: vehicles, "
                                 "dimensions: [sensitive, qi:engine]}"});
    cluster.CreateTopic(config.kafka.topics.input, kInputPartitions);
    cluster.CreateTopic(config.state.changelog.topic, kInputPartitions);
    for (const std::string& t : {config.kafka.topics.anonymized, config.kafka.topics.releases, config.kafka.topics.dlq,
                                 config.kafka.topics.late, config.kafka.topics.counts}) {
      cluster.CreateTopic(t, 2);
    }
    const int64_t now =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    const int64_t len = config.privacy.epoch.length_seconds * 1000;
    r->in = ProduceFleet(config, bootstrap, now / len * len);
    const Produced& in = r->in;
    uint64_t& produced = r->produced;
    for (const auto& [p, n] : in.messages) produced += n;

    service::Service service(config, "e2e-hmac-key-0123456789abcdefghij", testing::TestStateKeys());
    std::atomic<bool> stop{false};
    int rc = -1;
    std::thread run([&] { rc = service.Run(stop); });
    // Done when everything is consumed, nothing is buffered or waiting.
    const bool drained = testing::WaitFor(120, [&] {
      const service::ServiceStatus s = service.Status();
      return s.consumed == produced && s.buffered == 0 && s.waiting == 0 && s.releases >= 6 * kInputPartitions;
    });
    stop = true;
    run.join();
    if (!drained) {
      r->failure = "consumed " + std::to_string(service.Status().consumed) + " of " + std::to_string(produced);
      return r;
    }
    if (rc != 0) {
      r->failure = "Run returned " + std::to_string(rc);
      return r;
    }
    // The mock cluster keeps about 5 MB a partition; truncated input would
    // look like loss below.
    if (testing::ReadTopic(bootstrap, config.kafka.topics.input).size() != produced) {
      r->failure = "the mock cluster truncated the input";
      return r;
    }
    r->out = ReadOutput(bootstrap, config);
    return r;
  }();
  return *run;
}

TEST(E2eRelease, CheckerFindsNoViolationOverSixReleases) {
  const ServiceRun& run = TheRun();
  ASSERT_TRUE(run.failure.empty()) << run.failure;
  const config::Config& config = run.config;
  const std::string bootstrap = run.cluster->Bootstrap();
  const Produced& in = run.in;
  const uint64_t produced = run.produced;
  const testing::TempDir& state = run.state;
  const Output& out = run.out;
  EXPECT_EQ(out.other_attempts, 0u) << "a release transaction was retried in a run without faults";
  EXPECT_EQ(testing::ReadTopic(bootstrap, config.kafka.topics.dlq).size(), in.malformed);
  const auto late = testing::ReadTopic(bootstrap, config.kafka.topics.late);
  EXPECT_EQ(late.size(), static_cast<size_t>(kLateMessages));

  const engine::Schema schema = release::SchemaFromConfig(config.quasi_identifiers, config.sensitive);
  ReleaseReconstructor r(config, schema, kInputPartitions);
  for (const TruthMessage& t : in.truth) r.AddTruth(t);
  for (const auto& l : late) r.AddLateMessage(l.value);
  for (const std::string& e : out.events) r.AddEventRecord(e);
  for (const std::string& g : out.releases) r.AddReleaseRecord(g);
  const E2eReport report = r.Check();
  std::string shown;
  for (size_t i = 0; i < report.violations.size() && i < 20; ++i) shown += report.violations[i] + "\n";
  EXPECT_TRUE(report.violations.empty()) << report.violations.size() << " violations:\n" << shown;

  // The service's counters, from its state, against the records.
  auto store = state::StateStore::Open(state.path());
  ASSERT_EQ(report.partitions.size(), static_cast<size_t>(kInputPartitions));
  uint64_t summary_events = 0, suppressed = 0, late_events = 0, rejected = 0, with_events = 0;
  uint64_t releases = 0, tuples = 0, counterfeits = 0, after_waiting = 0;
  for (const auto& [p, a] : report.partitions) {
    const state::PartitionProgress pr = store->LoadProgress(p);
    EXPECT_GE(a.releases, 6u) << "partition " << p;
    EXPECT_EQ(pr.consumed, in.messages.at(p)) << "partition " << p;
    EXPECT_EQ(pr.rejected_total(), in.rejected.count(p) ? in.rejected.at(p) : 0) << "partition " << p;
    EXPECT_EQ(pr.late, a.late_events) << "partition " << p;
    EXPECT_EQ(pr.released, a.published_events) << "partition " << p;
    EXPECT_EQ(pr.suppressed, a.suppressed_events) << "partition " << p;
    EXPECT_EQ(pr.releases, a.releases) << "partition " << p;
    EXPECT_EQ(a.waiting_events + a.unreleased_events, 0u) << "partition " << p;
    summary_events += a.summary_events;
    suppressed += a.suppressed_events;
    late_events += a.late_events;
    rejected += pr.rejected_total();
    with_events += a.published_events > 0;
    releases += a.releases;
    tuples += a.published_tuples;
    counterfeits += a.counterfeits;
    after_waiting += a.published_from_waiting;
  }
  EXPECT_EQ(late_events, static_cast<uint64_t>(kLateMessages));
  EXPECT_EQ(summary_events + suppressed + late_events + rejected, produced);
  EXPECT_GT(summary_events, produced / 4) << "too little was published for the check to mean much";
  EXPECT_EQ(with_events, static_cast<uint64_t>(kInputPartitions));
  std::cout << "produced " << produced << ": released " << summary_events << ", suppressed " << suppressed << ", late "
            << late_events << ", rejected " << rejected << "; " << releases << " partition releases, " << tuples
            << " tuples published (" << after_waiting << " after waiting), " << counterfeits << " counterfeits\n";
}

// A reader of every output topic who knows each vehicle's QIs,
// partition and the releases it is in must be left at least m candidate
// values per vehicle-release, and after intersecting a vehicle's releases.
// On version-1 records (tokens paired with values) this fails: a group with
// one real tuple and m-1 counterfeits disclosed its member's value.
TEST(E2eRelease, ConsumerAttackLeavesEveryVehicleMCandidates) {
  const ServiceRun& run = TheRun();
  ASSERT_TRUE(run.failure.empty()) << run.failure;
  const engine::Schema schema = release::SchemaFromConfig(run.config.quasi_identifiers, run.config.sensitive);
  const TruthValues values(run.config, schema);
  std::string error;
  std::vector<EventRecord> events;
  for (const std::string& e : run.out.events) {
    auto r = ParseEventRecord(e, &error);
    ASSERT_TRUE(r.has_value()) << error;
    events.push_back(std::move(*r));
  }
  std::vector<GroupRecord> groups;
  uint64_t counterfeits = 0;
  for (const std::string& g : run.out.releases) {
    auto r = ParseReleaseRecord(g, &error);
    ASSERT_TRUE(r.has_value()) << error;
    if (r->is_summary) continue;
    counterfeits += r->group.counterfeits;
    groups.push_back(std::move(r->group));
  }
  // The adversary's knowledge: each published vehicle-release (found here
  // through the test's seq marker, standing for what the adversary knows).
  std::map<uint64_t, const TruthMessage*> by_seq;
  for (const TruthMessage& t : run.in.truth) by_seq[*SeqOfPayload(t.payload_json)] = &t;
  std::set<std::pair<std::string, int64_t>> seen;
  std::vector<Target> targets;
  for (const EventRecord& e : events) {
    ASSERT_TRUE(e.seq && by_seq.count(*e.seq));
    const TruthMessage& t = *by_seq[*e.seq];
    if (!seen.emplace(t.vin, e.release).second) continue;
    auto qi = values.EncodeQi(t.qi);
    ASSERT_TRUE(qi.has_value());
    targets.push_back({t.vin, t.partition, e.release, *qi});
  }
  const size_t m = static_cast<size_t>(run.config.privacy.m);
  const AttackReport report = RunDisclosureAttack(schema, events, groups, targets, m);
  std::cout << "attack: " << report.targets << " vehicle-releases (" << counterfeits
            << " counterfeits published): " << report.disclosed << " disclosed, " << report.below_m << " below m=" << m
            << ", min " << report.min_candidates << " candidates; " << report.vehicles_below_m << " of "
            << report.vehicles << " vehicles below m after intersection\n";
  ASSERT_GT(report.targets, 100u) << "too few published vehicles for the attack to mean much";
  ASSERT_GT(counterfeits, 0u) << "no counterfeits: the attack would not test what it is for";
  std::string shown;
  for (const std::string& x : report.examples) shown += x + "\n";
  EXPECT_EQ(report.below_m, 0u) << shown;
  EXPECT_EQ(report.vehicles_below_m, 0u);
  EXPECT_GE(report.min_candidates, m);
}

// The channel without suppression: DP counts of vehicles per artist and
// engine type (demo.yaml's vehicles_by_artist, sensitive dimension). Every
// listed artist and "other" is published for every release, partition and
// engine, and the published counts minus the input's true counts behave as
// the record says: discrete Laplace noise of scale sensitivity / epsilon,
// mean 0, variance 2p / (1 - p)^2 with p = exp(-1 / scale). Cells where some
// vehicle played more artists than max_cells are left out (the service keeps
// a keyed-hash choice of them, which the truth does not model).
struct CellKey {
  int64_t release;
  int32_t partition;
  std::string artist, engine;
  auto operator<=>(const CellKey&) const = default;
};

std::optional<std::string> Artist(const std::string& payload) {
  simdjson::dom::parser parser;
  simdjson::dom::element e;
  std::string_view v;
  if (parser.parse(payload).get(e) != simdjson::SUCCESS || e.at_key("artist").get(v) != simdjson::SUCCESS) {
    return std::nullopt;
  }
  return std::string(v);
}

TEST(E2eRelease, DpSensitiveHistogramMatchesTheInputWithinItsNoise) {
  const ServiceRun& run = TheRun();
  ASSERT_TRUE(run.failure.empty()) << run.failure;
  const config::Config& c = run.config;
  const std::set<std::string> listed(c.dp.sensitive_values.begin(), c.dp.sensitive_values.end());
  const int64_t len = c.privacy.epoch.length_seconds * 1000;
  const std::set<std::string> engines = {"EV", "Hybrid", "Plug-in Hybrid", "Gas", "Diesel", "Hydrogen", "CNG"};
  // Truth: distinct vehicles per cell, and the cells of vehicle-epochs
  // bounding may have cut.
  std::map<CellKey, std::set<std::string>> vehicles;
  std::map<std::tuple<int64_t, int32_t, std::string>, std::set<CellKey>> touched;
  for (const TruthMessage& t : run.in.truth) {
    const auto artist = Artist(t.payload_json);
    if (!artist || t.qi.size() < 2 || !engines.count(t.qi[1])) continue;
    const CellKey k{t.ts_ms / len, t.partition, listed.count(*artist) ? *artist : "other", t.qi[1]};
    vehicles[k].insert(t.vin);
    touched[{k.release, k.partition, t.vin}].insert(k);
  }
  std::set<CellKey> uncertain;
  for (const auto& [who, cells] : touched) {
    if (cells.size() > static_cast<size_t>(c.dp.max_cells)) uncertain.insert(cells.begin(), cells.end());
  }
  // Published counts.
  static const std::regex kRecord(
      R"re("release":(\d+),"query":"vehicles_by_artist","cell":\{"sensitive":"((?:[^"\\]|\\.)*)","engine":"([^"]*)"\},"kind":"count","value":(-?\d+)(?:,"unclamped":(-?\d+))?,"epsilon":([0-9.e-]+),"sensitivity":(\d+),"mechanism":"discrete_laplace".*"partition":(\d+)\})re");
  std::map<std::pair<int64_t, int32_t>, size_t> cells_of;
  std::vector<double> errors;
  std::map<std::string, std::pair<double, size_t>> by_value;  // sum of errors, cells
  double scale = 0;
  size_t truth_total = 0;
  for (const testing::TopicRecord& r : testing::ReadTopic(run.cluster->Bootstrap(), c.kafka.topics.counts)) {
    std::smatch m;
    if (!std::regex_search(r.value, m, kRecord)) continue;
    const CellKey k{std::stoll(m[1]), std::stoi(m[8]), m[2].str(), m[3].str()};
    ++cells_of[{k.release, k.partition}];
    scale = std::stod(m[7]) / std::stod(m[6]);
    if (uncertain.count(k)) continue;
    const int64_t noisy = std::stoll(m[5].matched ? m[5].str() : m[4].str());
    auto it = vehicles.find(k);
    const size_t truth = it == vehicles.end() ? 0 : it->second.size();
    truth_total += truth;
    errors.push_back(static_cast<double>(noisy) - static_cast<double>(truth));
    by_value[k.artist].first += errors.back();
    ++by_value[k.artist].second;
  }
  ASSERT_GE(cells_of.size(), 6u * kInputPartitions) << "a histogram per release and partition";
  for (const auto& [release, n] : cells_of) {
    EXPECT_EQ(n, (listed.size() + 1) * engines.size())
        << "release " << release.first << " partition " << release.second;
  }
  ASSERT_GT(errors.size(), 500u);
  EXPECT_GT(truth_total, 200u) << "too few counted vehicles for the check to mean much";
  EXPECT_LT(uncertain.size() * 10, errors.size()) << "bounding cut too many cells to compare";
  double mean = 0, var = 0;
  for (double e : errors) mean += e;
  mean /= static_cast<double>(errors.size());
  for (double e : errors) var += (e - mean) * (e - mean);
  var /= static_cast<double>(errors.size() - 1);
  const double p = std::exp(-1 / scale), expected = 2 * p / ((1 - p) * (1 - p));
  std::cout << "dp histogram: " << errors.size() << " cells, " << truth_total << " vehicle-cells, scale " << scale
            << ", error mean " << mean << ", variance " << var << " (expected " << expected << ")\n";
  EXPECT_LT(std::abs(mean), 5 * std::sqrt(expected / static_cast<double>(errors.size())));
  // Per value (a count put in the wrong cell, or dropped, shows here).
  EXPECT_EQ(by_value.size(), listed.size() + 1);
  for (const auto& [value, e] : by_value) {
    EXPECT_LT(std::abs(e.first), 5 * std::sqrt(expected * static_cast<double>(e.second))) << value;
  }
  EXPECT_GT(var, 0.7 * expected);
  EXPECT_LT(var, 1.4 * expected);
}

}  // namespace
}  // namespace vanon::e2e
