// Crash safety of releases, with the real binaries: `vanon run` is killed
// (SIGKILL, via VANON_FAULT_POINT) at each named point of the release loop
// and between two poll batches (ingest.after_batch: the events since the last
// release exist only in memory and in the input topic; at the 6th batch at
// least one epoch has usually been released before), restarted, and must then have published every release once, with
// the same content as any interrupted attempt, and accounted for every event:
//   consumed = released + suppressed + late + rejected.
// Also: no raw VIN and no HMAC of one in any output topic or log line.
#include <gtest/gtest.h>
#include <signal.h>
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "fleet_feed.h"
#include "test_support.h"
#include "topic_reader.h"
#include "vanon/ingest/keyed_hasher.h"
#include "vanon/kafka/producer.h"
#include "vanon/state/state_store.h"

namespace vanon::service {
namespace {

using testing::Subprocess;
using testing::TempDir;
using testing::TopicRecord;

constexpr const char* kHmacKey = "crash-test-hmac-key-0123456789abcdef";
constexpr int kInputPartitions = 2;

struct Cluster {
  std::unique_ptr<Subprocess> process;
  std::string bootstrap;
};

Cluster StartKafka() {
  std::vector<std::string> argv = {VANON_KAFKA_BIN, "--brokers", "1"};
  for (const std::string& a : testing::ServiceTopicArgs(kInputPartitions, 2)) argv.push_back(a);
  Cluster c;
  c.process = std::make_unique<Subprocess>(argv);
  c.bootstrap = c.process->FirstLine(20);
  return c;
}

std::unique_ptr<Subprocess> StartVanon(const std::string& bootstrap, const std::string& state, int port,
                                       const std::string& fault_point, const std::vector<std::string>& sets = {}) {
  std::vector<std::string> env = {std::string("VANON_HMAC_KEY=") + kHmacKey, testing::kStateKeysEnv,
                                  "VANON_INSTANCE_ID=crash-test"};
  if (!fault_point.empty()) env.push_back("VANON_FAULT_POINT=" + fault_point);
  std::vector<std::string> argv = {VANON_BIN,  "run",
                                   "--config", std::string(VANON_SOURCE_DIR) + "/config/demo.yaml",
                                   "--set",    "kafka.bootstrap=" + bootstrap,
                                   "--set",    "input.max_message_bytes=16384",
                                   "--set",    "state.dir=" + state,
                                   "--set",    "http.listen=127.0.0.1:" + std::to_string(port),
                                   "--set",    "privacy.epoch.length_seconds=2",
                                   "--set",    "privacy.epoch.allowed_lateness_seconds=1",
                                   "--set",    "privacy.epoch.idle_timeout_seconds=2"};
  for (const std::string& set : sets) {
    argv.push_back("--set");
    argv.push_back(set);
  }
  return std::make_unique<Subprocess>(argv, env, /*capture_stderr=*/true);
}

// Everything consumed, every epoch with events released, nothing waiting.
// Lag is only known for assigned partitions: until the killed instance's
// group membership expires the restarted one may own only some of them.
bool Drained(int port) {
  return testing::ScrapeMetric(port, "vanon_partitions_assigned") == kInputPartitions &&
         testing::ScrapeMetric(port, "vanon_releases_total") >= 2 * kInputPartitions &&
         testing::ScrapeMetric(port, "vanon_consumer_lag_messages{stat=\"sum\"}") == 0 &&
         testing::ScrapeMetric(port, "vanon_events_buffered") == 0 &&
         testing::ScrapeMetric(port, "vanon_tuples_waiting") == 0;
}

struct Summary {
  int64_t release = 0, partition = 0, events = 0, groups = 0;
};

bool ParseSummary(const std::string& json, Summary* s) {
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(json);
  simdjson::ondemand::document doc;
  if (parser.iterate(padded).get(doc)) return false;
  std::string_view type;
  if (doc["type"].get_string().get(type) || type != "summary") return false;
  return !doc["release"].get_int64().get(s->release) && !doc["partition"].get_int64().get(s->partition) &&
         !doc["events"].get_int64().get(s->events) && !doc["groups"].get_int64().get(s->groups);
}

// The "group" member of a group record or an anonymized event ("" if none).
std::string GroupOf(const std::string& json) {
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(json);
  simdjson::ondemand::document doc;
  std::string_view g;
  if (parser.iterate(padded).get(doc) || doc["group"].get_string().get(g)) return "";
  return std::string(g);
}

// Asserts no raw VIN and no HMAC of one (hex, as vanon would print it) in
// `text`; `what` names the source in the failure message.
void ExpectNoIdentifiers(const std::string& text, const std::set<std::string>& vins, const std::string& what) {
  ingest::KeyedHasher hasher(kHmacKey);
  size_t raw = 0, hashed = 0;
  for (const std::string& vin : vins) {
    raw += text.find(vin) != std::string::npos;
    hashed += text.find(hasher.HashHex(vin)) != std::string::npos;
  }
  EXPECT_EQ(raw, 0u) << "raw VINs in " << what;
  EXPECT_EQ(hashed, 0u) << "VIN HMACs in " << what;
}

testing::FeedOptions Feed() {
  testing::FeedOptions fo;
  fo.messages = 6000;
  // 20 events per vehicle: enough media events per 2 s epoch that the mode
  // artist is mostly stable, so signature conflicts do not swallow most of
  // the output (the assertion below needs a meaningful share published).
  fo.vehicles = 150;
  fo.invalid_fraction = 0.02;
  fo.rate = 1000;  // 6 s of event time: three or four 2 s epochs with events
  return fo;
}

class ReleaseCrash : public ::testing::TestWithParam<const char*> {};

TEST_P(ReleaseCrash, RestartPublishesEachReleaseOnceWithIdenticalContentAndAccountsEveryEvent) {
  // "name@n": the n-th pass of the point; "name": the second.
  const std::string param = GetParam();
  const std::string point = param.substr(0, param.find('@'));
  const std::string hit = param.find('@') == std::string::npos ? "@2" : param.substr(param.find('@'));
  Cluster kafka = StartKafka();
  ASSERT_FALSE(kafka.bootstrap.empty());
  TempDir state;
  const int port = testing::FreePort();
  testing::FeedSummary feed = testing::ProduceFleet(kafka.bootstrap, "vehicle.events.raw", Feed());

  // The second hit: one release (or batch) has gone through normally before.
  auto first = StartVanon(kafka.bootstrap, state.path(), port, point + hit);
  ASSERT_EQ(first->Wait(90), 128 + SIGKILL) << first->Output();
  EXPECT_NE(first->Output().find("fault injection: killing at " + point), std::string::npos);

  auto second = StartVanon(kafka.bootstrap, state.path(), port, "");
  ASSERT_TRUE(testing::WaitFor(120, [&] { return Drained(port); })) << second->Output();
  second->Signal(SIGTERM);
  ASSERT_EQ(second->Wait(60), 0) << second->Output();
  ASSERT_EQ(testing::SumLowWatermarks(kafka.bootstrap, "vehicle.events.raw", kInputPartitions), 0)
      << "the mock cluster truncated the input; the counts below would be meaningless";

  // Accounting, from the state the service left.
  uint64_t consumed = 0, rejected = 0, late = 0, released = 0, suppressed = 0;
  {
    auto store = state::StateStore::Open(state.path());
    for (int p = 0; p < kInputPartitions; ++p) {
      state::PartitionProgress pr = store->LoadProgress(p);
      consumed += pr.consumed;
      rejected += pr.rejected_total();
      late += pr.late;
      released += pr.released;
      suppressed += pr.suppressed;
    }
    EXPECT_EQ(store->CountAllEvents(), 0u) << "events left in the buffer";
  }
  EXPECT_EQ(consumed, feed.total);
  EXPECT_EQ(rejected, feed.invalid);
  EXPECT_EQ(released + suppressed + late + rejected, consumed);
  std::cout << "consumed " << consumed << ": released " << released << ", suppressed " << suppressed << ", late "
            << late << ", rejected " << rejected << "\n";
  EXPECT_GT(released, feed.total / 4) << "too little was published for the test to mean anything";

  // Output: per (release, partition) exactly one summary; the attempt that
  // wrote it holds as many groups and events as it says; records of any
  // other (interrupted) attempt are byte-identical to records of it. One
  // attempt (transaction) may carry several partitions' shares, so events
  // are assigned to their share through their group id.
  std::vector<TopicRecord> rel = testing::ReadTopic(kafka.bootstrap, "vehicle.releases");
  std::vector<TopicRecord> anon = testing::ReadTopic(kafka.bootstrap, "vehicle.events.anonymized");
  std::map<std::string, std::map<std::string, std::vector<const TopicRecord*>>> by_release;  // key -> attempt
  std::map<std::string, std::vector<const TopicRecord*>> anon_by_attempt;
  for (const TopicRecord& r : rel) by_release[r.key][r.headers.at("vanon.attempt")].push_back(&r);
  std::map<std::string, std::map<std::string, std::vector<const TopicRecord*>>> anon_by_attempt_group;
  for (const TopicRecord& r : anon) {
    anon_by_attempt[r.headers.at("vanon.attempt")].push_back(&r);
    anon_by_attempt_group[r.headers.at("vanon.attempt")][GroupOf(r.value)].push_back(&r);
  }
  // The anonymized events of share `key` written by `attempt`.
  auto share_events = [&](const std::map<std::string, std::vector<const TopicRecord*>>& attempts,
                          const std::string& attempt) {
    std::vector<const TopicRecord*> out;
    auto& by_group = anon_by_attempt_group[attempt];
    for (const TopicRecord* g : attempts.at(attempt)) {
      auto it = by_group.find(GroupOf(g->value));
      if (it != by_group.end() && !it->first.empty()) out.insert(out.end(), it->second.begin(), it->second.end());
    }
    return out;
  };
  std::vector<TopicRecord> counts = testing::ReadTopic(kafka.bootstrap, "vehicle.counts.dp");
  std::map<std::string, std::map<std::string, std::vector<const TopicRecord*>>> counts_by_release;
  for (const TopicRecord& r : counts) counts_by_release[r.key][r.headers.at("vanon.attempt")].push_back(&r);
  int64_t summary_events = 0;
  size_t interrupted_attempts = 0;
  std::set<std::string> committed_attempts;  // transactions that wrote a summary
  std::map<int64_t, std::set<int64_t>> releases_of_partition;
  for (const auto& [key, attempts] : by_release) {
    std::string committed;
    Summary s;
    int summaries = 0;
    for (const auto& [attempt, records] : attempts) {
      for (const TopicRecord* r : records) {
        Summary one;
        if (ParseSummary(r->value, &one)) {
          ++summaries;
          committed = attempt;
          s = one;
        }
      }
    }
    ASSERT_EQ(summaries, 1) << "release " << key << " has " << summaries << " summaries";
    committed_attempts.insert(committed);
    EXPECT_EQ(key, std::to_string(s.release) + "/" + std::to_string(s.partition));
    releases_of_partition[s.partition].insert(s.release);
    EXPECT_EQ(attempts.at(committed).size(), static_cast<size_t>(s.groups) + 1) << key;
    const std::vector<const TopicRecord*> committed_events = share_events(attempts, committed);
    EXPECT_EQ(committed_events.size(), static_cast<size_t>(s.events)) << key;
    summary_events += s.events;
    std::set<std::string> good;
    for (const TopicRecord* r : attempts.at(committed)) good.insert(r->value);
    for (const TopicRecord* r : committed_events) good.insert(r->value);
    for (const auto& [attempt, records] : attempts) {
      if (attempt == committed) continue;
      ++interrupted_attempts;
      for (const TopicRecord* r : records) EXPECT_TRUE(good.count(r->value)) << "republication differs: " << key;
      for (const TopicRecord* r : share_events(attempts, attempt)) EXPECT_TRUE(good.count(r->value)) << key;
    }
    // DP counts travel in the release's transaction: the committed attempt
    // has them, and any other attempt drew exactly the same noise (fresh
    // noise for the same release would let a consumer average two draws).
    auto dp = counts_by_release.find(key);
    ASSERT_NE(dp, counts_by_release.end()) << "release " << key << " has no DP counts";
    ASSERT_TRUE(dp->second.count(committed)) << "DP counts of " << key << " are not in the committed attempt";
    std::set<std::string> dp_good;
    for (const TopicRecord* r : dp->second.at(committed)) dp_good.insert(r->value);
    EXPECT_EQ(dp_good.size(), dp->second.at(committed).size()) << "duplicate DP record in " << key;
    for (const auto& [attempt, records] : dp->second) {
      if (attempt == committed) continue;
      EXPECT_EQ(records.size(), dp_good.size()) << key;
      for (const TopicRecord* r : records) EXPECT_TRUE(dp_good.count(r->value)) << "DP noise differs on retry: " << key;
    }
  }
  for (const auto& [key, attempts] : counts_by_release) {
    EXPECT_TRUE(by_release.count(key)) << "DP counts of " << key << " without a release";
  }
  // An interrupted attempt that only reached the anonymized topic.
  std::set<std::string> known_attempts;
  for (const auto& [key, attempts] : by_release) {
    for (const auto& [attempt, records] : attempts) known_attempts.insert(attempt);
  }
  for (const auto& [attempt, records] : anon_by_attempt) {
    if (known_attempts.count(attempt)) continue;
    ++interrupted_attempts;
    std::set<std::string> all_committed;
    for (const TopicRecord& r : anon) {
      if (r.headers.at("vanon.attempt") != attempt) all_committed.insert(r.value);
    }
    for (const TopicRecord* r : records) EXPECT_TRUE(all_committed.count(r->value)) << "republication differs";
  }
  EXPECT_EQ(summary_events, static_cast<int64_t>(released));
  // ... and committed transactions hold no event outside their shares' groups.
  size_t committed_anon = 0;
  for (const std::string& a : committed_attempts) committed_anon += anon_by_attempt[a].size();
  EXPECT_EQ(committed_anon, static_cast<size_t>(summary_events));
  for (const auto& [p, ids] : releases_of_partition) {
    EXPECT_EQ(static_cast<int64_t>(ids.size()), *ids.rbegin() - *ids.begin() + 1) << "a release id is missing";
  }
  ASSERT_EQ(releases_of_partition.size(), static_cast<size_t>(kInputPartitions));
  // The mock shows aborted records (it writes no transaction markers), so
  // the kill inside the transaction must have left some behind.
  if (point == "release.mid_produce") {
    EXPECT_GE(interrupted_attempts, 1u);
  }
  // The killed share's changelog records are on the broker and its summary
  // is not: the restart must resume that release, not restore it.
  if (point == "release.changelog_first") {
    EXPECT_NE(second->Output().find("its summary is not on"), std::string::npos) << second->Output();
  }
  // Killed right after a commit, on the thread that runs transactions: none
  // can be open. (Prepare and apply run on the consuming thread, and may
  // kill the release thread in the middle of another batch's transaction.)
  if (point == "release.after_commit") {
    EXPECT_EQ(interrupted_attempts, 0u);
  }

  std::string outputs;
  for (const TopicRecord& r : rel) outputs += r.key + r.value;
  for (const TopicRecord& r : anon) outputs += r.key + r.value;
  for (const TopicRecord& r : counts) outputs += r.key + r.value;
  ASSERT_NE(outputs.find("media_track_changed"), std::string::npos) << "positive control: the search sees records";
  ExpectNoIdentifiers(outputs, feed.vins, "output topics");
  const std::string logs = first->Output() + second->Output();
  ASSERT_NE(logs.find("release "), std::string::npos) << "positive control: release log lines present";
  ExpectNoIdentifiers(logs, feed.vins, "logs");
  if (HasFailure()) {
    // For the CI log: what both processes said about partitions and releases.
    std::istringstream lines(logs);
    for (std::string line; std::getline(lines, line);) {
      if (line.find("batch") != std::string::npos) continue;
      if (line.find("release") != std::string::npos || line.find("partition") != std::string::npos ||
          line.find("dp") != std::string::npos || line.find("fault") != std::string::npos) {
        std::cout << line.substr(0, 400) << "\n";
      }
    }
  }
}

int64_t TsOf(const std::string& json) {
  simdjson::ondemand::parser parser;
  simdjson::padded_string padded(json);
  simdjson::ondemand::document doc;
  int64_t ts = -1;
  if (parser.iterate(padded).get(doc) || doc["ts"].get_int64().get(ts)) return -1;
  return ts;
}

const std::vector<std::string> kNoChangelog = {"state.changelog.enabled=false"};

struct CommittedUnapplied {
  uint64_t fed = 0;
  std::map<int64_t, int64_t> committed;  // partition -> release of its committed, unapplied share
  uint64_t copies = 0;                   // late copies of events of those shares
};

// The changelog off, a share committed but not applied (the release thread
// hangs right after the commit), and meanwhile a copy of one of its events
// arrives: late, as its epoch's end is behind the watermark (the epoch
// closed by idleness: the feed spans less than one epoch). Then the process
// is killed.
void CommitCopyAndKill(const std::string& bootstrap, const std::string& state, int port, CommittedUnapplied* out) {
  testing::FeedOptions fo;
  fo.messages = 1500;
  fo.vehicles = 150;
  fo.invalid_fraction = 0;
  fo.rate = 1000;  // 1.5 s of event time, inside one 2 s epoch, 30 s ago
  const int64_t now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  fo.start_ms = (now_ms / 2000 - 15) * 2000 + 100;
  out->fed = testing::ProduceFleet(bootstrap, "vehicle.events.raw", fo).total;

  auto first = StartVanon(bootstrap, state, port, "release.after_commit:hang", kNoChangelog);
  ASSERT_TRUE(testing::WaitFor(90, [&] {
    return first->Output().find("fault injection: hanging at release.after_commit") != std::string::npos;
  })) << first->Output();
  // The committed shares (the first batch): a copy of one of each one's
  // events goes to its partition.
  for (const TopicRecord& r : testing::ReadTopic(bootstrap, "vehicle.releases")) {
    Summary s;
    if (ParseSummary(r.value, &s)) out->committed[s.partition] = s.release;
  }
  ASSERT_FALSE(out->committed.empty());
  std::map<int64_t, int64_t> to_copy = out->committed;
  kafka::Producer producer(bootstrap, {}, {});
  for (const TopicRecord& r : testing::ReadTopic(bootstrap, "vehicle.events.raw")) {
    auto c = to_copy.find(r.partition);
    if (c == to_copy.end() || TsOf(r.value) < 0 || TsOf(r.value) / 2000 != c->second) continue;
    producer.Produce("vehicle.events.raw", r.partition, r.key, r.value);
    to_copy.erase(c);
    ++out->copies;
  }
  ASSERT_TRUE(producer.Flush(10000));
  ASSERT_GT(out->copies, 0u);
  ASSERT_TRUE(testing::WaitFor(60, [&] {
    return testing::ScrapeMetric(port, "vanon_events_late_total{route=\"topic\"}") >= static_cast<double>(out->copies);
  })) << "the copies were not counted late before the kill";
  first->Signal(SIGKILL);
  ASSERT_EQ(first->Wait(30), 128 + SIGKILL);
}

// The restart reads the input again with the clock rewound, so the copy is
// on time for the clock. The prepare record's offsets keep it late: the
// state applied is that of the published release.
TEST(ReleaseCrashExact, ALateEventOfACommittedUnappliedEpochStaysLateAfterTheRestart) {
  Cluster kafka = StartKafka();
  ASSERT_FALSE(kafka.bootstrap.empty());
  TempDir state;
  const int port = testing::FreePort();
  CommittedUnapplied killed;
  ASSERT_NO_FATAL_FAILURE(CommitCopyAndKill(kafka.bootstrap, state.path(), port, &killed));
  const uint64_t copies = killed.copies;

  auto second = StartVanon(kafka.bootstrap, state.path(), port, "", kNoChangelog);
  ASSERT_TRUE(testing::WaitFor(120, [&] {
    return testing::ScrapeMetric(port, "vanon_partitions_assigned") == kInputPartitions &&
           testing::ScrapeMetric(port, "vanon_releases_total") >= 1 &&
           testing::ScrapeMetric(port, "vanon_consumer_lag_messages{stat=\"sum\"}") == 0 &&
           testing::ScrapeMetric(port, "vanon_events_buffered") == 0 &&
           testing::ScrapeMetric(port, "vanon_tuples_waiting") == 0;
  })) << second->Output();
  second->Signal(SIGTERM);
  ASSERT_EQ(second->Wait(60), 0) << second->Output();
  EXPECT_NE(second->Output().find("it was committed, applying its state"), std::string::npos) << second->Output();

  // Published: one summary per (release, partition), its events per partition.
  std::map<std::string, int> summaries;
  std::map<int64_t, int64_t> published;  // partition -> events in its summaries
  for (const TopicRecord& r : testing::ReadTopic(kafka.bootstrap, "vehicle.releases")) {
    Summary s;
    if (!ParseSummary(r.value, &s)) continue;
    ++summaries[r.key];
    published[s.partition] += s.events;
  }
  for (const auto& [key, n] : summaries) EXPECT_EQ(n, 1) << key;
  auto store = state::StateStore::Open(state.path());
  uint64_t late = 0, consumed = 0, accounted = 0;
  for (int p = 0; p < kInputPartitions; ++p) {
    const state::PartitionProgress pr = store->LoadProgress(p);
    EXPECT_EQ(static_cast<int64_t>(pr.released), published[p]) << "partition " << p << ": applied != published";
    late += pr.late;
    consumed += pr.consumed;
    accounted += pr.released + pr.suppressed + pr.late + pr.rejected_total();
  }
  EXPECT_EQ(consumed, killed.fed + copies);
  EXPECT_EQ(late, copies) << "a copy was taken by the recomputation of its committed release";
  EXPECT_EQ(accounted, consumed);
  EXPECT_GT(published[0] + published[1], 0) << "nothing published: the check above means little";
}

// As if retention had deleted the committed share's events before the
// restart read them again: its prepare record names an offset the input
// does not have. The restart must not apply a recomputation that differs
// from the published release: it exits 1 naming the release and partition.
TEST(ReleaseCrashExact, ARestartThatCannotReadTheCommittedEventsAgainFailsClosed) {
  Cluster kafka = StartKafka();
  ASSERT_FALSE(kafka.bootstrap.empty());
  TempDir state;
  const int port = testing::FreePort();
  CommittedUnapplied killed;
  ASSERT_NO_FATAL_FAILURE(CommitCopyAndKill(kafka.bootstrap, state.path(), port, &killed));
  const auto [partition, release] = *killed.committed.begin();
  {
    auto store = state::StateStore::Open(state.path());
    std::optional<state::ReleaseLogEntry> entry = store->GetRelease(static_cast<int32_t>(partition), release);
    ASSERT_TRUE(entry && entry->status == state::ReleaseStatus::kPrepared && entry->epoch_offsets);
    ASSERT_GT(entry->epoch_offsets->size(), 0u);
    entry->epoch_offsets = state::OffsetSet::Of({1000000});  // beyond the input's end
    state::ReleaseWrite w(*store);
    w.PutRelease(static_cast<int32_t>(partition), release, *entry);
    store->Commit(w);
  }
  auto second = StartVanon(kafka.bootstrap, state.path(), port, "", kNoChangelog);
  ASSERT_EQ(second->Wait(120), 1) << second->Output();
  const std::string expected = "release " + std::to_string(release) + " partition " + std::to_string(partition) +
                               ": committed before the restart, but the input read again no longer holds";
  EXPECT_NE(second->Output().find(expected), std::string::npos) << second->Output();
  auto store = state::StateStore::Open(state.path());
  std::optional<state::ReleaseLogEntry> entry = store->GetRelease(static_cast<int32_t>(partition), release);
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->status, state::ReleaseStatus::kPrepared) << "nothing applied";
}

INSTANTIATE_TEST_SUITE_P(EveryFaultPoint, ReleaseCrash,
                         ::testing::Values("ingest.after_batch", "ingest.after_batch@6", "release.after_prepare",
                                           "release.mid_produce", "release.before_commit", "release.changelog_first",
                                           "release.after_commit", "release.after_apply"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '.', '_');
                           std::replace(n.begin(), n.end(), '@', '_');
                           return n;
                         });

}  // namespace
}  // namespace vanon::service
