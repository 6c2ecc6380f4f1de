// Global DP counts with the real binaries on the mock cluster:
// two input partitions, `vanon run` with dp.aggregation.topic. The
// aggregating instance is killed at a DP fault point (a global window
// charged, its records not yet produced) or after a commit, restarted, and
// every published window must then be global, noisy, complete, charged once
// and have one value per cell (republished records are identical).
#include <gtest/gtest.h>
#include <signal.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "fleet_feed.h"
#include "instance_phase.h"
#include "lifecycle_support.h"
#include "test_support.h"
#include "topic_reader.h"
#include "vanon/seal/record_sealer.h"

namespace vanon::service {
namespace {

using testing::Subprocess;
using testing::TempDir;

constexpr const char* kHmacKey = "dp-global-test-hmac-key-0123456789ab";
constexpr const char* kPartialTopic = "vanon.dp.partials";
constexpr int kInputPartitions = 2;
constexpr double kEpsilon = 1;

std::unique_ptr<Subprocess> StartKafka(std::string* bootstrap) {
  return testing::StartServiceKafka(kInputPartitions, 2, bootstrap, {std::string(kPartialTopic) + ":1"});
}

std::unique_ptr<Subprocess> StartVanon(const std::string& bootstrap, const std::string& state, int port,
                                       const std::string& fault_point, int max_wait_windows = 1000) {
  testing::RunOptions o{bootstrap, state, port, kHmacKey, "dp-global-test", testing::kStateKeysEnv, {}, {}};
  if (!fault_point.empty()) o.env.push_back("VANON_FAULT_POINT=" + fault_point);
  o.sets = {"dp.window_seconds=4", "dp.time_bucket_seconds=2", "dp.epsilon_per_release=1", "dp.budget.epsilon=100000",
            std::string("dp.aggregation.topic=") + kPartialTopic,
            // The feed is consumed as a backlog: one partition's releases may
            // run many windows ahead of the other's; no window may time out here.
            "dp.aggregation.max_wait_windows=" + std::to_string(max_wait_windows)};
  return testing::StartRun(o);
}

bool Drained(int port) {
  return testing::ReleasedAndSettled(port, kInputPartitions, 2 * kInputPartitions) &&
         testing::ScrapeMetric(port, "vanon_tuples_waiting") == 0;
}

struct Record {
  std::string window, key, value, tail;
};

bool Parse(const std::string& json, Record* r) {
  static const std::regex kRecord(
      R"re("query":"([^"]+)","cell":(\{[^}]*\}),"kind":"[a-z]+","value":([-0-9.e]+).*"mechanism":"([^"]+)".*"window_start_ms":(\d+),"window_end_ms":(\d+)(.*)\}$)re");
  std::smatch m;
  if (!std::regex_search(json, m, kRecord)) return false;
  r->window = m[5].str() + "-" + m[6].str();
  r->key = m[1].str() + m[2].str() + m[4].str();
  r->value = m[3].str();
  r->tail = m[7].str();
  return true;
}

// Global windows (not running totals) in the counts topic so far, each with
// the tail of its records.
std::map<std::string, std::set<std::string>> PublishedWindowTails(const std::string& bootstrap) {
  std::map<std::string, std::set<std::string>> windows;
  for (const testing::TopicRecord& t : testing::ReadTopic(bootstrap, "vehicle.counts.dp")) {
    Record r;
    if (Parse(t.value, &r) && r.window.rfind("0-", 0) != 0) windows[r.window].insert(r.tail);
  }
  return windows;
}

size_t PublishedWindows(const std::string& bootstrap) { return PublishedWindowTails(bootstrap).size(); }

constexpr const char* kBothComplete =
    ",\"scope\":\"global\",\"partitions\":2,\"contributing_partitions\":[0,1],\"complete\":true";

// A window's name in Record::window.
std::string WindowName(int64_t index) {
  return std::to_string(index * 4000) + "-" + std::to_string((index + 1) * 4000);
}

// window index -> sources of the partials in the partial topic that counted
// some event.
std::map<int64_t, std::set<int64_t>> WindowsWithEvents(const std::string& bootstrap) {
  std::map<int64_t, std::set<int64_t>> out;
  seal::RecordSealer sealer(testing::TestStateKeys());  // the partials are sealed; the test holds the key
  for (const testing::TopicRecord& t : testing::ReadTopic(bootstrap, kPartialTopic)) {
    seal::Opened opened = sealer.Open({kPartialTopic, t.partition, t.key}, t.value);
    if (opened.status != seal::OpenStatus::kOk) continue;
    std::istringstream in(opened.plaintext);
    std::string magic, line;
    int64_t window = 0, source = 0;
    if (!(in >> magic >> window >> source) || magic != "vdp-partial1") continue;
    std::getline(in, line);
    std::getline(in, line);  // events_by_name
    std::istringstream cells(line);
    int64_t events = 0;
    for (int64_t v; cells >> v;) events += v;
    if (events > 0) out[window].insert(source);
  }
  return out;
}

// What each test starts from: the cluster with the partials topic, an empty
// state dir and a free port_ for `vanon run`.
class DpGlobalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kafka_ = StartKafka(&bootstrap_);
    ASSERT_FALSE(bootstrap_.empty());
    port_ = testing::FreePort();
  }

  std::string bootstrap_;
  std::unique_ptr<Subprocess> kafka_;
  TempDir state_;
  int port_ = 0;
};

class DpGlobalCrash : public DpGlobalTest, public ::testing::WithParamInterface<const char*> {};
class DpGlobalIdleAggregator : public DpGlobalTest {};

TEST_P(DpGlobalCrash, EachWindowIsPublishedOnceGloballyCompleteAndChargedOnce) {
  // 12 s of event time: three 4 s windows.
  testing::ProduceFleet(bootstrap_, "vehicle.events.raw",
                        {.messages = 12000, .vehicles = 150, .invalid_fraction = 0, .rate = 1000});

  auto first = StartVanon(bootstrap_, state_.path(), port_, GetParam());
  ASSERT_EQ(first->Wait(120), 128 + SIGKILL) << first->Output();
  auto second = StartVanon(bootstrap_, state_.path(), port_, "");
  // Windows go on being published after the drain (idle partitions close
  // empty epochs, and every window is published), and a window is charged
  // just before its records are produced. So the ledger is compared, before
  // the stop, with the windows published at the same moment: the topic read
  // before and after the scrape holds the same windows (seen once in CI when
  // scraped alone: 3 charges, 4 windows in the topic read after the stop).
  double spent = -1;
  size_t published = 0;
  bool consistent = false;
  ASSERT_NO_FATAL_FAILURE(testing::FinishPhase(
      *second, 120, [&] { return Drained(port_); },
      [&] {
        consistent = testing::WaitFor(60, [&] {
          const size_t before = PublishedWindows(bootstrap_);
          spent = testing::ScrapeMetric(port_, "vanon_dp_epsilon_spent");
          published = PublishedWindows(bootstrap_);
          return before == published && spent == kEpsilon * static_cast<double>(published);
        });
      }));

  // window -> (query, cell, mechanism) -> values seen (duplicates from
  // aborted attempts are visible on the mock cluster; they must be equal).
  std::map<std::string, std::map<std::string, std::set<std::string>>> windows;
  std::map<int64_t, int64_t> published_vehicles;  // window index -> sum of the cells
  std::set<std::pair<int64_t, int64_t>> seen_partials;
  for (const testing::TopicRecord& t : testing::ReadTopic(bootstrap_, "vehicle.counts.dp")) {
    Record r;
    ASSERT_TRUE(Parse(t.value, &r)) << t.value;
    EXPECT_EQ(r.tail, ",\"scope\":\"global\",\"partitions\":2,\"contributing_partitions\":[0,1],\"complete\":true")
        << t.value;
    if (windows[r.window][r.key].insert(r.value).second && r.key.rfind("vehicles_by_engine{", 0) == 0 &&
        r.key.find("discrete_laplace") != std::string::npos) {
      published_vehicles[std::stoll(r.window) / 4000] += std::stoll(r.value);
    }
  }
  size_t discrete = 0;
  for (const auto& [window, cells] : windows) {
    if (window.rfind("0-", 0) == 0) continue;  // running totals
    ++discrete;
    for (const auto& [key, values] : cells) {
      EXPECT_EQ(values.size(), 1u) << "window " << window << " " << key << " published with different values";
    }
  }
  EXPECT_GE(discrete, 2u) << "too few windows published";
  // One charge per published window, on the aggregation partition's ledger.
  EXPECT_TRUE(consistent) << "epsilon spent " << spent << " against " << published << " published windows";

  // Noise: per window, the published vehicles_by_engine total against the
  // exact total of the partials it was computed from (second measurement).
  std::map<int64_t, int64_t> exact;
  seal::RecordSealer sealer(testing::TestStateKeys());  // the partials are sealed; the test holds the key
  for (const testing::TopicRecord& t : testing::ReadTopic(bootstrap_, kPartialTopic)) {
    seal::Opened opened = sealer.Open({kPartialTopic, t.partition, t.key}, t.value);
    ASSERT_EQ(opened.status, seal::OpenStatus::kOk) << "partial at offset " << t.offset;
    std::istringstream in(opened.plaintext);
    std::string magic, line;
    int64_t window = 0, source = 0;
    ASSERT_TRUE(in >> magic >> window >> source) << t.value;
    if (magic == "vdp-global1") continue;  // the aggregator's mark of a published window
    EXPECT_EQ(magic, "vdp-partial1");
    if (!seen_partials.insert({window, source}).second) continue;  // an aborted attempt's copy
    std::getline(in, line);
    std::getline(in, line);  // events_by_name
    std::getline(in, line);  // vehicles_by_engine
    std::istringstream cells(line);
    for (int64_t v; cells >> v;) exact[window] += v;
  }
  size_t differ = 0;
  for (const auto& [window, total] : published_vehicles) differ += exact.count(window) && exact[window] != total;
  EXPECT_GT(differ, 0u) << "every published window total equals the exact total: no noise";
}

// Input partition 0 aggregates but receives no input at all; partition 1
// does. The aggregation partition's clock starts at wall time (after the
// idle timeout), its epochs close by idleness, and its releases publish the
// global windows: every window of partition 1's events (incomplete when it
// began before the aggregation partition's clock started, which then never
// reports it) and complete ones that both partitions reported.
TEST_F(DpGlobalIdleAggregator, GlobalWindowsGoOutWhenTheAggregationPartitionHasNoInput) {
  // 3 s of event time, all on partition 1.
  testing::ProduceFleet(bootstrap_, "vehicle.events.raw",
                        {.messages = 3000, .vehicles = 100, .invalid_fraction = 0, .rate = 1000, .partition = 1});

  auto vanon = StartVanon(bootstrap_, state_.path(), port_, "", /*max_wait_windows=*/1);
  std::map<std::string, std::set<std::string>> published;
  std::map<int64_t, std::set<int64_t>> with_events;
  auto done = [&] {
    published = PublishedWindowTails(bootstrap_);
    with_events = WindowsWithEvents(bootstrap_);
    bool complete = false;
    for (const auto& [window, tails] : published) complete = complete || tails.count(kBothComplete);
    bool events_out = !with_events.empty();
    for (const auto& [w, sources] : with_events) events_out = events_out && published.count(WindowName(w));
    return complete && events_out;
  };
  const bool out = testing::WaitFor(90, done);
  const double spent = testing::ScrapeMetric(port_, "vanon_dp_epsilon_spent");
  vanon->Signal(SIGTERM);
  ASSERT_EQ(vanon->Wait(60), 0) << vanon->Output();
  ASSERT_TRUE(out) << published.size() << " global windows published, " << with_events.size() << " windows with events"
                   << vanon->Output();
  for (const auto& [w, sources] : with_events) {
    EXPECT_EQ(sources, std::set<int64_t>{1}) << "window " << w << ": only partition 1 has input";
  }
  for (const auto& [window, tails] : published) {
    for (const std::string& tail : tails) {
      EXPECT_EQ(tail.rfind(",\"scope\":\"global\",\"partitions\":2,", 0), 0u) << window << tail;
    }
  }
  EXPECT_GT(spent, 0);

  // The aggregation partition's releases are empty shares, each with its
  // summary, so releases from its start on are complete for consumers.
  static const std::regex kSummary(
      R"re(^\{"type":"summary","version":2,"release":(-?\d+),"partition":(\d+),.*"groups":(\d+),.*"events":(\d+),)re");
  std::map<std::string, std::set<std::string>> summarized;  // release -> partitions
  for (const testing::TopicRecord& t : testing::ReadTopic(bootstrap_, "vehicle.releases")) {
    std::smatch m;
    if (!std::regex_search(t.value, m, kSummary)) continue;
    summarized[m[1].str()].insert(m[2].str());
    if (m[2].str() == "0") {
      EXPECT_EQ(m[3].str() + " " + m[4].str(), "0 0") << t.value;
    }
  }
  size_t complete_releases = 0;
  for (const auto& [release, partitions] : summarized) complete_releases += partitions.size() == 2;
  EXPECT_GT(complete_releases, 0u) << summarized.size() << " releases summarized";
}

INSTANTIATE_TEST_SUITE_P(Points, DpGlobalCrash,
                         ::testing::Values("dp.after_global_charge@1", "dp.after_global_charge@2",
                                           "release.after_commit@4"));

}  // namespace
}  // namespace vanon::service
