// PreparedEpochFilter alone (over an EpochClock), and in IngestPipeline: a
// restart that re-reads a prepared epoch gives its share exactly the events
// the first attempt took, even those the rewound clock would take on time.
#include "service/task/prepared_epoch_filter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "test_support.h"
#include "service/ingest/ingest_pipeline.h"
#include "vanon/state/state_store.h"

namespace vanon::service {
namespace {

using release::Arrival;

constexpr const char* kVin = "WBA3A5C58CF256985";
constexpr const char* kKey = "unit-test-hmac-key-0123456789abcdef";

config::EpochConfig TenSecondEpochs() {
  config::EpochConfig c;
  c.length_seconds = 10;
  c.allowed_lateness_seconds = 2;
  c.idle_timeout_seconds = 5;
  return c;
}

TEST(PreparedEpochFilterTest, DecidesOnlyForItsOpenEpoch) {
  release::EpochClock clock(TenSecondEpochs());
  const int64_t e = 100, start = e * 10000;
  ASSERT_EQ(clock.Observe(start + 100, 0), Arrival::kOnTime);
  const PreparedEpochFilter filter(e, state::OffsetSet::Of({10, 12}));
  ASSERT_TRUE(filter.active());
  // On time by the clock, but not taken by the first attempt: late.
  EXPECT_EQ(filter.Classify(clock, start + 200, 11, Arrival::kOnTime), Arrival::kLate);
  // Taken by the first attempt: on time, whatever the clock says.
  EXPECT_EQ(filter.Classify(clock, start + 200, 12, Arrival::kOnTime), Arrival::kOnTime);
  EXPECT_EQ(filter.Classify(clock, start + 200, 10, Arrival::kLate), Arrival::kOnTime);
  // Other epochs: the clock decides.
  EXPECT_EQ(filter.Classify(clock, start + 10000, 11, Arrival::kOnTime), Arrival::kOnTime);
  EXPECT_EQ(filter.Classify(clock, start - 1, 12, Arrival::kLate), Arrival::kLate);
  // Once the epoch is applied (closed), the clock decides again.
  clock.AdvanceIdle(60000);
  ASSERT_EQ(clock.NextClosable(), e);
  clock.Close(e);
  EXPECT_EQ(filter.Classify(clock, start + 200, 12, Arrival::kLate), Arrival::kLate);
  // An inactive filter never overrides.
  EXPECT_EQ(PreparedEpochFilter().Classify(clock, start + 200, 12, Arrival::kLate), Arrival::kLate);
}

TEST(PreparedEpochFilterTest, EpochOffsetsLeaveOutOlderEpochs) {
  release::TakenEvents taken(2);
  taken[0].keys = {{900, 3}, {950, 1}};               // an older epoch (from state)
  taken[1].keys = {{1000, 7}, {1500, 5}, {1200, 9}};  // the epoch that starts at 1000
  taken[0].events.resize(2);
  taken[1].events.resize(3);
  EXPECT_EQ(EpochOffsetsOf(taken, 1000), state::OffsetSet::Of({5, 7, 9}));
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string Message(int64_t ts) {
  return std::string("{\"vin\":\"") + kVin + "\",\"trip_id\":\"t1\",\"ts\":" + std::to_string(ts) +
         ",\"event\":\"media_track_changed\",\"payload\":{\"source\":\"bluetooth\"}}";
}

std::vector<int64_t> BufferedOffsets(IngestPipeline* pipeline, int32_t partition, int64_t end_ms) {
  std::vector<int64_t> out;
  for (const release::EpochList& list : pipeline->Events(partition).Take(end_ms)) {
    for (const auto& key : list.keys) out.push_back(key.second);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Epoch e closes by idleness (wall time), then an event of e arrives: late.
// The share of e is prepared with the offsets it took, and the process
// crashes. The restart reads the input again with a clock that says e is
// open: without the filter it would take the late event too (partition 1,
// no prepare record); with it, exactly what the first attempt took.
TEST(PreparedEpochFilterTest, ARestartTakesExactlyThePreparedEventsOfAnEpochClosedByIdleness) {
  testing::TempDir dir;
  const config::Config config = config::LoadConfig(std::string(VANON_SOURCE_DIR) + "/config/demo.yaml",
                                                   {"state.dir=" + dir.path(), "privacy.epoch.length_seconds=10"});
  std::unique_ptr<state::StateStore> store = state::StateStore::Open(dir.path());
  const int64_t now = NowMs();
  const int64_t e = now / 10000 - 5, start = e * 10000;
  const std::vector<std::string> values = {Message(start + 100), Message(start + 200), Message(start + 300),
                                           Message(start + 500)};
  auto input = [&](int32_t partition) {
    std::vector<kafka::InputMessage> out;
    for (size_t i = 0; i < values.size(); ++i) out.push_back({partition, static_cast<int64_t>(i), kVin, values[i]});
    return out;
  };
  {
    IngestPipeline first(config, kKey, store.get(), nullptr, nullptr);
    const std::vector<kafka::InputMessage> in = input(0);
    first.Process({in.begin(), in.begin() + 3}, now);
    first.Clock(0).AdvanceIdle(now + 20000);
    ASSERT_EQ(first.Clock(0).NextClosable(), e);
    first.Process({in[3]}, now + 20000);
    ASSERT_EQ(first.Progress(0).late, 1u) << "offset 3 arrived after the idle close";
    const release::TakenEvents taken = first.Events(0).Take(first.Clock(0).EpochEnd(e));
    state::ReleaseLogEntry prepared;
    prepared.epoch_offsets = EpochOffsetsOf(taken, start);
    ASSERT_EQ(prepared.epoch_offsets, state::OffsetSet::Of({0, 1, 2}));
    state::ReleaseWrite w(*store);
    w.PutRelease(0, e, prepared);
    store->Commit(w);
  }  // the crash: nothing else was stored
  IngestPipeline second(config, kKey, store.get(), nullptr, nullptr);
  second.Process(input(1), now + 30000);
  EXPECT_EQ(BufferedOffsets(&second, 1, start + 10000), (std::vector<int64_t>{0, 1, 2, 3}))
      << "the rewound clock alone takes the late event";
  second.Process(input(0), now + 30000);
  EXPECT_EQ(BufferedOffsets(&second, 0, start + 10000), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(second.Progress(0).late, 1u);
}

}  // namespace
}  // namespace vanon::service
