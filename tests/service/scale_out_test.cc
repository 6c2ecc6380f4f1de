// Scale-out with the state changelog, with the real binaries on
// the mock cluster: one `vanon run` consumes a fleet and releases it; a second
// instance with an empty state dir joins the same consumer group, takes half
// of the partitions, and the fleet goes on streaming. An independent check
// over the output topics then finds: each (release, partition) share
// published once, no input event published twice, every vehicle under one
// signature across all releases and both instances, every input event
// accounted for, and no raw VIN in the changelog.
//
// Without the changelog (today's behaviour: the second instance starts the
// partitions it gets at `earliest` with no state) the same run publishes
// shares twice and gives vehicles a second signature. Set
// VANON_SCALE_OUT_TEST_CHANGELOG=off to see it fail that way.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <thread>

#include "fleet_feed.h"
#include "seq_feed.h"
#include "ground_truth.h"
#include "output_records.h"
#include "test_support.h"
#include "topic_reader.h"
#include "vanon/fleet/fleet_generator.h"
#include "vanon/kafka/producer.h"
#include "vanon/state/state_store.h"
#include "vanon/vehicle/vin_decoder.h"

namespace vanon::service {
namespace {

using testing::Subprocess;
using testing::TempDir;
using testing::TopicRecord;

constexpr const char* kHmacKey = "scale-out-test-hmac-key-0123456789abcd";
constexpr int kInputPartitions = 4;
constexpr const char* kChangelog = "vanon.state.changelog";

bool ChangelogOn() {
  const char* v = std::getenv("VANON_SCALE_OUT_TEST_CHANGELOG");
  return v == nullptr || std::string(v) != "off";
}

std::unique_ptr<Subprocess> StartKafka(std::string* bootstrap) {
  std::vector<std::string> argv = {VANON_KAFKA_BIN, "--brokers", "1"};
  for (const std::string& a : testing::ServiceTopicArgs(kInputPartitions, 2)) argv.push_back(a);
  auto k = std::make_unique<Subprocess>(argv);
  *bootstrap = k->FirstLine(20);
  return k;
}

std::unique_ptr<Subprocess> StartVanon(const std::string& bootstrap, const std::string& instance,
                                       const std::string& state, int port) {
  std::vector<std::string> argv = {
      VANON_BIN, "run", "--config", std::string(VANON_SOURCE_DIR) + "/config/demo.yaml", "--set",
      "kafka.bootstrap=" + bootstrap, "--set", "input.max_message_bytes=16384", "--set", "state.dir=" + state, "--set",
      "http.listen=127.0.0.1:" + std::to_string(port), "--set", "privacy.epoch.length_seconds=2", "--set",
      "privacy.epoch.allowed_lateness_seconds=1", "--set", "privacy.epoch.idle_timeout_seconds=2",
      // Overrides cannot append to a list: the test's seq marker replaces
      // the artist entry (dropped by default anyway).
      "--set", "payload.fields.3={path: seq, transform: keep}"};
  for (const std::string& a : {std::string("state.changelog.enabled=") + (ChangelogOn() ? "true" : "false"),
                               std::string("state.changelog.topic=") + kChangelog}) {
    argv.push_back("--set");
    argv.push_back(a);
  }
  return std::make_unique<Subprocess>(argv,
                                      std::vector<std::string>{std::string("VANON_HMAC_KEY=") + kHmacKey,
                                                               testing::kStateKeysEnv, "VANON_INSTANCE_ID=" + instance},
                                      /*capture_stderr=*/true);
}

double Metric(int port, const std::string& series) { return testing::ScrapeMetric(port, series); }

// Everything the instance owns is consumed and released.
bool Settled(int port) {
  return Metric(port, "vanon_consumer_lag_messages{stat=\"sum\"}") == 0 && Metric(port, "vanon_events_buffered") == 0;
}

// join: b joins while a runs and takes half of the partitions. kill: a is
// killed (SIGKILL) once it has released, and b, started with an empty state
// dir, takes all of them when a's group membership expires.
class ScaleOut : public ::testing::TestWithParam<const char*> {};

TEST_P(ScaleOut, SecondInstanceWithEmptyStateKeepsReleasesOnceAndSignaturesFixed) {
  const bool kill = std::string(GetParam()) == "kill";
  std::string bootstrap;
  auto kafka = StartKafka(&bootstrap);
  ASSERT_FALSE(bootstrap.empty());
  TempDir state_a, state_b;
  const int port_a = testing::FreePort(), port_b = testing::FreePort();

  vanon::testing::SeqFeed feed;   // 120 vehicles, the same fleet in every chunk
  feed.Produce(bootstrap, 3000);  // 3 s of event time: a release or two per partition
  auto a = StartVanon(bootstrap, "scale-a", state_a.path(), port_a);
  ASSERT_TRUE(testing::WaitFor(90, [&] {
    return Metric(port_a, "vanon_partitions_assigned") == kInputPartitions &&
           Metric(port_a, "vanon_releases_total") >= 2 * kInputPartitions && Settled(port_a);
  })) << a->Output();

  // The second instance joins with an empty state dir and gets half of the
  // partitions, which instance a has released before.
  if (kill) {
    a->Signal(SIGKILL);
    ASSERT_EQ(a->Wait(30), 128 + SIGKILL);
  }
  auto b = StartVanon(bootstrap, "scale-b", state_b.path(), port_b);
  ASSERT_TRUE(testing::WaitFor(120, [&] {
    double pa = kill ? 0 : Metric(port_a, "vanon_partitions_assigned"),
           pb = Metric(port_b, "vanon_partitions_assigned");
    return pb > 0 && (kill || pa > 0) && pa + pb == kInputPartitions;
  })) << b->Output();
  const uint64_t part1_last_seq = feed.seq;
  feed.Produce(bootstrap, 3000);  // the same vehicles, released by both instances now
  ASSERT_TRUE(testing::WaitFor(120,
                               [&] {
                                 double pa = kill ? 0 : Metric(port_a, "vanon_partitions_assigned"),
                                        pb = Metric(port_b, "vanon_partitions_assigned");
                                 return pa + pb == kInputPartitions && (kill || Settled(port_a)) && Settled(port_b) &&
                                        Metric(port_b, "vanon_releases_total") >= 2;
                               }))
      << a->Output() << b->Output();
  if (ChangelogOn()) {
    EXPECT_GE(Metric(port_b, "vanon_state_restores_total{outcome=\"restored\"}"), 1)
        << "positive control: b restored a partition from the changelog";
    // No group offset contradicts the changelog's resume offset. (The mock
    // accepts TxnOffsetCommit but stores nothing, so b sees -1 there and
    // resumes from the changelog alone; a real broker stores the offsets.)
    EXPECT_FALSE(std::regex_search(b->Output(), std::regex("but the group committed [0-9]"))) << b->Output();
  }
  if (!kill) {
    a->Signal(SIGTERM);
    ASSERT_EQ(a->Wait(60), 0) << a->Output();
  }
  b->Signal(SIGTERM);
  ASSERT_EQ(b->Wait(60), 0) << b->Output();
  ASSERT_EQ(testing::SumLowWatermarks(bootstrap, "vehicle.events.raw", kInputPartitions), 0)
      << "the mock cluster truncated the input";
  ASSERT_EQ(testing::SumLowWatermarks(bootstrap, kChangelog, kInputPartitions), 0)
      << "the mock cluster truncated the changelog";

  // Output, read back as a downstream consumer would.
  std::map<std::string, int> summaries;                       // "release/partition" -> count
  std::map<std::string, std::set<std::string>> sig_of_group;  // group id -> its sensitive values
  std::map<std::string, int> group_records;
  std::string error;
  for (const TopicRecord& r : testing::ReadTopic(bootstrap, "vehicle.releases")) {
    std::optional<e2e::ReleaseRecord> rec = e2e::ParseReleaseRecord(r.value, &error);
    ASSERT_TRUE(rec) << error;
    if (rec->is_summary) {
      summaries[std::to_string(rec->summary.release) + "/" + std::to_string(rec->summary.partition)]++;
    } else {
      ++group_records[rec->group.group];
      sig_of_group[rec->group.group] = {rec->group.sensitive.begin(), rec->group.sensitive.end()};
    }
  }
  int twice = 0;
  for (const auto& [key, n] : summaries) twice += n > 1;
  EXPECT_EQ(twice, 0) << "release shares published more than once (of " << summaries.size() << ")";
  int groups_twice = 0;
  for (const auto& [g, n] : group_records) groups_twice += n > 1;
  EXPECT_EQ(groups_twice, 0) << "group records published more than once";

  // DP counts: each release's in one transaction only (the budget is
  // charged once per release; a second publication would be a second draw).
  std::map<std::string, std::set<std::string>> dp_attempts;  // release key -> attempts
  for (const TopicRecord& r : testing::ReadTopic(bootstrap, "vehicle.counts.dp")) {
    dp_attempts[r.key].insert(r.headers.count("vanon.attempt") ? r.headers.at("vanon.attempt") : "");
  }
  int dp_twice = 0;
  for (const auto& [key, attempts] : dp_attempts) dp_twice += attempts.size() > 1;
  EXPECT_GT(dp_attempts.size(), 0u) << "positive control: DP counts published";
  EXPECT_EQ(dp_twice, 0) << "releases whose DP counts were published twice (of " << dp_attempts.size() << ")";

  std::map<uint64_t, int> published;                            // seq -> times
  std::map<std::string, std::set<std::set<std::string>>> sigs;  // VIN -> signatures
  std::set<std::string> in_part1, in_part2;                     // vehicles published from each half of the feed
  std::vector<TopicRecord> anon = testing::ReadTopic(bootstrap, "vehicle.events.anonymized");
  uint64_t without_seq = 0;
  for (const TopicRecord& r : anon) {
    std::optional<e2e::EventRecord> e = e2e::ParseEventRecord(r.value, &error);
    ASSERT_TRUE(e) << error;
    if (!e->seq || !feed.vin_of_seq.count(*e->seq)) {
      ++without_seq;
      continue;
    }
    published[*e->seq]++;
    (*e->seq <= part1_last_seq ? in_part1 : in_part2).insert(feed.vin_of_seq.at(*e->seq));
    auto g = sig_of_group.find(e->group);
    ASSERT_NE(g, sig_of_group.end()) << "an event's group has no group record";
    sigs[feed.vin_of_seq.at(*e->seq)].insert(g->second);
  }
  EXPECT_EQ(without_seq, 0u);
  int events_twice = 0;
  for (const auto& [seq, n] : published) events_twice += n > 1;
  EXPECT_EQ(events_twice, 0) << "input events published more than once (of " << published.size() << ")";
  int two_signatures = 0;
  for (const auto& [vin, s] : sigs) two_signatures += s.size() > 1;
  EXPECT_EQ(two_signatures, 0) << "vehicles published under more than one signature (of " << sigs.size() << ")";
  std::cout << "shares " << summaries.size() << " (" << twice << " twice), events " << published.size() << " ("
            << events_twice << " twice), vehicles " << sigs.size() << " (" << two_signatures
            << " with two signatures), DP releases " << dp_attempts.size() << " (" << dp_twice << " twice)\n";
  ASSERT_GT(published.size(), feed.vin_of_seq.size() / 4) << "positive control: a meaningful share was published";
  size_t both = 0;
  for (const std::string& v : in_part1) both += in_part2.count(v);
  EXPECT_GT(both, 10u) << "positive control: vehicles published before and after the second instance joined";

  // Accounting: each partition's progress in the state of the instance
  // that released it last (the other one's copy is stale).
  if (ChangelogOn()) {
    auto sa = state::StateStore::Open(state_a.path());
    auto sb = state::StateStore::Open(state_b.path());
    uint64_t consumed = 0, accounted = 0;
    for (int p = 0; p < kInputPartitions; ++p) {
      auto newest = [&](const state::StateStore& s) {
        int64_t n = INT64_MIN;
        s.ScanReleasesNewestFirst(p, [&](int64_t id, const state::ReleaseLogEntry& e) {
          if (e.status != state::ReleaseStatus::kCommitted) return true;
          n = id;
          return false;
        });
        return n;
      };
      const state::StateStore& owner = newest(*sa) >= newest(*sb) ? *sa : *sb;
      state::PartitionProgress pr = owner.LoadProgress(p);
      consumed += pr.consumed;
      accounted += pr.released + pr.suppressed + pr.late + pr.rejected_total();
    }
    EXPECT_EQ(consumed, feed.total) << "every input message consumed once";
    EXPECT_EQ(accounted, consumed) << "released + suppressed + late + rejected";
  }

  // The changelog holds HMACs, codes and ids, never a raw VIN.
  std::string changelog;
  size_t changelog_records = 0;
  for (const TopicRecord& r : testing::ReadTopic(bootstrap, kChangelog)) {
    changelog += r.key;
    changelog += r.value;
    ++changelog_records;
  }
  std::cout << "changelog: " << changelog_records << " records, " << changelog.size() << " bytes\n";
  if (ChangelogOn()) {
    EXPECT_GT(changelog_records, 0u);
  }
  size_t raw = 0;
  for (const std::string& vin : feed.vins) raw += changelog.find(vin) != std::string::npos;
  EXPECT_EQ(raw, 0u) << "raw VINs in the changelog";
  if (HasFailure()) std::cout << a->Output().substr(0, 20000) << "\n----\n" << b->Output().substr(0, 20000) << "\n";
}

INSTANTIATE_TEST_SUITE_P(JoinOrKill, ScaleOut, ::testing::Values("join", "kill"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

// `run` with the internal topics missing or wrong. The mock
// cluster cannot create topics (no controller, no CreateTopics), so `run`
// must refuse at once with the broker's reason and the manual fix, and must
// not have created the topic by asking about it (a metadata request naming
// a missing topic auto-creates it on the mock, with 4 partitions).
TEST(InternalTopicsAtStart, RunRefusesAMissingOrWrongChangelogWithTheFix) {
  std::vector<std::string> topics = {VANON_KAFKA_BIN, "--brokers", "1", "--topic", "vanon.small.changelog:2"};
  for (const std::string& a : testing::ServiceTopicArgs(kInputPartitions, 2)) topics.push_back(a);
  Subprocess kafka(topics);
  const std::string bootstrap = kafka.FirstLine(20);
  TempDir dir;
  auto run = [&](const std::vector<std::string>& sets) {
    std::vector<std::string> argv = {VANON_BIN,  "run",
                                     "--config", std::string(VANON_SOURCE_DIR) + "/config/demo.yaml",
                                     "--set",    "kafka.bootstrap=" + bootstrap,
                                     "--set",    "state.dir=" + dir.path(),
                                     "--set",    "http.listen=127.0.0.1:" + std::to_string(testing::FreePort())};
    for (const std::string& a : sets) {
      argv.push_back("--set");
      argv.push_back(a);
    }
    Subprocess p(argv, {std::string("VANON_HMAC_KEY=") + kHmacKey, testing::kStateKeysEnv}, /*capture_stderr=*/true);
    EXPECT_EQ(p.Wait(120), 1) << p.Output();
    return p.Output();
  };
  const std::string created = run({"state.changelog.topic=vanon.other.changelog"});
  EXPECT_NE(created.find("cannot create state.changelog.topic topic vanon.other.changelog: the cluster names no "
                         "controller broker to ask; create it with 4 partition(s), cleanup.policy=compact, "
                         "retention.bytes=-1, retention.ms=-1, or give vanon's principal the Create ACL"),
            std::string::npos)
      << created;
  // Still missing: asking did not auto-create it.
  const std::string missing =
      run({"state.changelog.topic=vanon.other.changelog", "kafka.create_internal_topics=false"});
  EXPECT_NE(missing.find("state.changelog.topic topic vanon.other.changelog does not exist: create it with 4 "
                         "partition(s)"),
            std::string::npos)
      << missing;
  // An existing topic with 2 partitions for 4 input partitions.
  const std::string wrong = run({"state.changelog.topic=vanon.small.changelog"});
  EXPECT_NE(wrong.find("state.changelog.topic topic vanon.small.changelog has 2 partition(s); it needs exactly 4 (one "
                       "per input partition)"),
            std::string::npos)
      << wrong;
}

}  // namespace
}  // namespace vanon::service
