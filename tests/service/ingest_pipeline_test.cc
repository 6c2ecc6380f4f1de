// IngestPipeline against a real StateStore in a temp dir (no Kafka: the
// batch is handed in directly, and nothing here is rejected).
#include "service/ingest/ingest_pipeline.h"

#include <gtest/gtest.h>

#include <chrono>

#include <prometheus/registry.h>

#include "service/collector/changelog_writer.h"
#include "service/store/record_names.h"
#include "test_support.h"
#include "service/ingest/ingest_metrics.h"
#include "vanon/state/state_store.h"

namespace vanon::service {
namespace {

constexpr const char* kVin = "WBA3A5C58CF256985";

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string Message(int64_t ts) {
  return std::string("{\"vin\":\"") + kVin + "\",\"trip_id\":\"t1\",\"ts\":" + std::to_string(ts) +
         ",\"event\":\"media_track_changed\",\"payload\":{\"artist\":\"Kid Cudi\",\"source\":\"bluetooth\","
         "\"speed_kmh\":57.5,\"location\":{\"lat\":48.137154,\"lon\":11.576124}}}";
}

// demo.yaml drops `artist` and unlisted fields, bins speed and grids the
// location: what state may hold of the message above.
void ExpectTransformed(const std::string& payload) {
  EXPECT_EQ(payload.find("artist"), std::string::npos) << payload;
  EXPECT_EQ(payload.find("Kid Cudi"), std::string::npos) << payload;
  EXPECT_EQ(payload.find("48.137154"), std::string::npos) << payload;
  EXPECT_NE(payload.find("\"speed_kmh\":50"), std::string::npos) << payload;
  EXPECT_NE(payload.find("\"source\":\"bluetooth\""), std::string::npos) << payload;
}

class IngestPipelineTest : public ::testing::Test {
 protected:
  IngestPipelineTest()
      : config_(config::LoadConfig(std::string(VANON_SOURCE_DIR) + "/config/demo.yaml",
                                   {"state.dir=" + dir_.path(), "privacy.epoch.length_seconds=10"})),
        store_(state::StateStore::Open(dir_.path())) {}

  std::vector<release::KeyedEvent> StoredEvents(int32_t partition) {
    std::vector<release::KeyedEvent> out;
    store_->ScanEvents(partition, [&](int64_t ts, int64_t offset, std::string_view v) {
      release::KeyedEvent& e = out.emplace_back(release::KeyedEvent{ts, offset, {}});
      EXPECT_TRUE(DecodeBufferedEvent(v, &e.event));
      return true;
    });
    return out;
  }

  testing::TempDir dir_;
  config::Config config_;
  std::unique_ptr<state::StateStore> store_;
};

TEST_F(IngestPipelineTest, BatchesMoveMemoryOnlyAndTheBufferHoldsTheTransformedPayload) {
  IngestPipeline pipeline(config_, "unit-test-hmac-key-0123456789abcdef", store_.get(), nullptr, nullptr);
  const int64_t now = NowMs();
  const std::string a = Message(now - 1000), b = Message(now - 500);
  pipeline.Process({{0, 0, kVin, a}, {0, 1, kVin, b}}, now);

  // Open epochs live in memory; the input topic is their durable copy.
  EXPECT_TRUE(StoredEvents(0).empty());
  EXPECT_EQ(store_->LoadProgress(0).next_offset, -1);
  EXPECT_FALSE(store_->GetMeta(0, kClockMeta).has_value());
  EXPECT_EQ(pipeline.NextOffset(0), 2);
  EXPECT_EQ(pipeline.Progress(0).accepted, 2u);

  release::EventBuffer& buffer = pipeline.Events(0);
  EXPECT_EQ(buffer.size(), 2u);
  release::EpochEvents taken = ArrangeEpochEvents(buffer.Take(now + 1), now - 20000);
  ASSERT_EQ(taken.current.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    ExpectTransformed(taken.current[i].payload_json);
    EXPECT_EQ(taken.current_keys[i].second, static_cast<int64_t>(i));
  }
}

// A crash after a release: the store holds what the release's apply wrote
// (StateAfterRelease of the snapshot taken when it was submitted), nothing of
// the batches after it. The next process re-reads the open epoch from the
// resume offset: buffered again without being counted up to replay_until,
// counted once after it.
TEST_F(IngestPipelineTest, ARestartAfterAReleaseReadsTheOpenEpochAgainAndCountsEachEventOnce) {
  const int64_t now = NowMs();
  const int64_t epoch_ms = 10000;
  const int64_t e = now / epoch_ms - 10;  // the open epoch, 90-100 s ago; e - 1 is released
  const int64_t start = e * epoch_ms;
  const std::vector<std::string> values = {Message(start - 300), Message(start - 200),  Message(start + 100),
                                           Message(start + 200), Message(start + 3000), Message(start + 400)};
  std::vector<kafka::InputMessage> input;  // offset 4 closes epoch e - 1
  for (size_t i = 0; i < values.size(); ++i) input.push_back({0, static_cast<int64_t>(i), kVin, values[i]});
  {
    IngestPipeline first(config_, "unit-test-hmac-key-0123456789abcdef", store_.get(), nullptr, nullptr);
    first.Process({input.begin(), input.begin() + 5}, now);
    release::EpochClock& clock = first.Clock(0);
    ASSERT_EQ(clock.NextClosable(), e - 1);
    release::TakenEvents taken = first.Events(0).Take(clock.EpochEnd(e - 1));
    const ReleaseBase base = TakeReleaseBase(clock, first.Progress(0), first.Events(0));
    EXPECT_EQ(base.resume_offset, 2);
    first.Process({input[5]}, now);  // after the submit: memory only, lost in the crash
    const ReleasedState released = StateAfterRelease(base, e - 1, /*published=*/2, /*suppressed=*/0);
    state::ReleaseWrite apply(*store_);
    apply.SetProgress(0, released.progress);
    apply.PutMeta(0, kClockMeta, released.clock.EncodeState());
    store_->Commit(apply);
  }
  IngestPipeline second(config_, "unit-test-hmac-key-0123456789abcdef", store_.get(), nullptr, nullptr);
  EXPECT_EQ(second.ResumeOffset(0), 2);
  EXPECT_LE(second.Clock(0).watermark_ms(), start) << "rewound to the first open epoch";
  second.Process(input, now);  // 0 and 1 are skipped: below the resume offset
  const state::PartitionProgress& p = second.Progress(0);
  EXPECT_EQ(p.consumed, 6u) << "5 before the release, offset 5 once more";
  EXPECT_EQ(p.accepted, 6u);
  EXPECT_EQ(p.released, 2u);
  EXPECT_EQ(p.late, 0u) << "the open epoch's events are on time again";
  EXPECT_EQ(second.Events(0).size(), 4u) << "2, 3, 4 (replayed) and 5";
  EXPECT_EQ(second.NextOffset(0), 6);
  EXPECT_EQ(store_->LoadProgress(0).next_offset, 2) << "ingestion writes nothing";
}

// A graceful stop stores the counters and clock without the events: the
// restart reads the buffered events again without counting them again.
TEST_F(IngestPipelineTest, ACheckpointStoresCountsNotEventsAndTheRestartCountsNothingTwice) {
  const int64_t now = NowMs();
  const std::vector<std::string> values = {Message(now - 3000), Message(now - 2000), Message(now - 1000)};
  std::vector<kafka::InputMessage> input;
  for (size_t i = 0; i < values.size(); ++i) input.push_back({0, static_cast<int64_t>(i) + 40, kVin, values[i]});
  {
    IngestPipeline first(config_, "unit-test-hmac-key-0123456789abcdef", store_.get(), nullptr, nullptr);
    first.Process(input, now);
    first.Checkpoint({0});
  }
  EXPECT_TRUE(StoredEvents(0).empty());
  const state::PartitionProgress stored = store_->LoadProgress(0);
  EXPECT_EQ(stored.next_offset, 40) << "the oldest buffered event";
  EXPECT_EQ(stored.replay_until, 43);
  EXPECT_EQ(stored.consumed, 3u);
  IngestPipeline second(config_, "unit-test-hmac-key-0123456789abcdef", store_.get(), nullptr, nullptr);
  EXPECT_EQ(second.ResumeOffset(0), 40);
  second.Process(input, now);
  EXPECT_EQ(second.Progress(0).consumed, 3u);
  EXPECT_EQ(second.Progress(0).accepted, 3u);
  EXPECT_EQ(second.Events(0).size(), 3u);
}

TEST_F(IngestPipelineTest, EventsStoredWithARawPayloadAreTransformedWhenLoaded) {
  // A version 1 record, as a build that transformed at release time left it.
  ingest::BufferedEvent old;
  old.ts_ms = NowMs() - 1000;
  old.event = "media_track_changed";
  old.payload_json =
      R"({"artist":"Kid Cudi","source":"bluetooth","speed_kmh":57.5,"location":{"lat":48.137154,"lon":11.576124}})";
  std::string bytes;
  EncodeBufferedEvent(old, &bytes);
  bytes[0] = static_cast<char>(ingest::kBufferedEventRawPayloadVersion);
  {
    state::ReleaseWrite w(*store_);
    w.PutEvent(3, old.ts_ms, 7, bytes);
    store_->Commit(w);
  }
  IngestPipeline pipeline(config_, "unit-test-hmac-key-0123456789abcdef", store_.get(), nullptr, nullptr);
  release::EpochEvents taken = ArrangeEpochEvents(pipeline.Events(3).Take(old.ts_ms + 1), 0);
  ASSERT_EQ(taken.current.size(), 1u);
  ExpectTransformed(taken.current[0].payload_json);
}

TEST_F(IngestPipelineTest, UnreadableFieldsAreDroppedAndCounted) {
  prometheus::Registry registry;
  IngestMetrics metrics(registry);
  IngestPipeline pipeline(config_, "unit-test-hmac-key-0123456789abcdef", store_.get(), nullptr, &metrics);
  const int64_t now = NowMs();
  const std::string good = Message(now - 1000);
  std::string bad = good;
  const std::string lat = "\"lat\":48.137154";
  bad.replace(bad.find(lat), lat.size(), "\"lat\":200");  // out of range: the grid cannot read it
  pipeline.Process({{0, 0, kVin, good}, {0, 1, kVin, bad}}, now);
  EXPECT_EQ(metrics.payload_malformed_fields.Value(), 1);
  EXPECT_EQ(metrics.payload_malformed_payloads.Value(), 0);
  const release::EpochEvents buffered = ArrangeEpochEvents(pipeline.Events(0).Take(now + 1), now - 20000);
  ASSERT_EQ(buffered.current.size(), 2u);
  EXPECT_NE(buffered.current[0].payload_json.find("location"), std::string::npos);
  EXPECT_EQ(buffered.current[1].payload_json.find("location"), std::string::npos) << "never buffered raw";
  EXPECT_EQ(buffered.current[1].payload_json.find("200"), std::string::npos);
  // Counted once: the next batch reports only its own.
  pipeline.Process({{0, 2, kVin, Message(now - 500)}}, now);
  EXPECT_EQ(metrics.payload_malformed_fields.Value(), 1);
}

// A full poll batch (a consumer catching up) is parsed in chunks by two
// threads while the consuming one routes; what it buffers, counts and routes
// must be what the same messages give in small batches, parsed on one. Faults
// sit in chunks of both threads.
TEST_F(IngestPipelineTest, ALargeBatchBuffersAndCountsWhatSmallBatchesOfTheSameMessagesDo) {
  const int64_t now = NowMs();
  std::vector<std::string> values;
  for (int i = 0; i < 3000; ++i) {
    std::string v = Message(now - 3000 + i);
    if (i % 97 == 5) {
      v = "{\"vin\":";  // broken JSON: rejected
    } else if (i % 89 == 7) {
      v.replace(v.find("\"ts\":"), 5, "\"ts\":\"x\",\"t\":");  // wrong type: rejected
    } else if (i % 83 == 11) {
      v.replace(v.find("\"lat\":48.137154"), 15, "\"lat\":200");  // field dropped, counted
    }
    values.push_back(std::move(v));
  }
  std::vector<kafka::InputMessage> all;
  for (size_t i = 0; i < values.size(); ++i) all.push_back({0, static_cast<int64_t>(i), kVin, values[i]});

  struct Outcome {
    std::vector<release::KeyedEvent> buffered;
    state::PartitionProgress progress;
    double malformed_fields = 0;
  };
  config::Config config = config_;
  config.kafka.poll_batch_max = static_cast<int>(all.size());  // the large batch is a full one
  auto run = [&](size_t batch_size) {
    prometheus::Registry registry;
    IngestMetrics metrics(registry);
    IngestPipeline pipeline(config, "unit-test-hmac-key-0123456789abcdef", store_.get(), nullptr, &metrics);
    for (size_t at = 0; at < all.size(); at += batch_size) {
      pipeline.Process({all.begin() + at, all.begin() + std::min(all.size(), at + batch_size)}, now);
    }
    Outcome o;
    for (release::EpochList& list : pipeline.Events(0).Take(now + 1)) {
      for (size_t i = 0; i < list.events.size(); ++i) {
        o.buffered.push_back({list.keys[i].first, list.keys[i].second, std::move(list.events[i])});
      }
    }
    o.progress = pipeline.Progress(0);
    o.malformed_fields = metrics.payload_malformed_fields.Value();
    return o;
  };
  const Outcome split = run(all.size());
  const Outcome small = run(100);

  ASSERT_EQ(split.buffered.size(), small.buffered.size());
  for (size_t i = 0; i < split.buffered.size(); ++i) {
    EXPECT_EQ(split.buffered[i].offset, small.buffered[i].offset) << i;
    EXPECT_EQ(split.buffered[i].event, small.buffered[i].event) << i;
  }
  const uint64_t rejected = 31 + 34;  // the broken and the mistyped messages above
  EXPECT_EQ(split.buffered.size(), 3000 - rejected);
  EXPECT_EQ(split.progress.accepted, small.progress.accepted);
  EXPECT_EQ(split.progress.rejected, small.progress.rejected);
  EXPECT_EQ(split.progress.rejected.at("broken_json"), 31u);
  EXPECT_EQ(split.progress.rejected.at("wrong_type"), 34u);
  // Dropped fields counted by both threads' transformers, once each.
  EXPECT_EQ(split.malformed_fields, small.malformed_fields);
  EXPECT_GT(split.malformed_fields, 30);
}

}  // namespace
}  // namespace vanon::service
