// IngestPipeline against a real StateStore in a temp dir (no Kafka: the
// batch is handed in directly, and nothing here is rejected).
#include "vanon/service/ingest_pipeline.h"

#include <gtest/gtest.h>

#include <chrono>

#include <prometheus/registry.h>

#include "test_support.h"
#include "vanon/service/ingest_metrics.h"
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

TEST_F(IngestPipelineTest, StateAndBufferHoldTheTransformedPayloadOnly) {
  IngestPipeline pipeline(config_, "unit-test-hmac-key-0123456789abcdef", store_.get(), nullptr, nullptr);
  const int64_t now = NowMs();
  const std::string a = Message(now - 1000), b = Message(now - 500);
  pipeline.Process({{0, 0, kVin, a}, {0, 1, kVin, b}}, now);

  const std::vector<release::KeyedEvent> stored = StoredEvents(0);
  ASSERT_EQ(stored.size(), 2u);
  for (const release::KeyedEvent& e : stored) ExpectTransformed(e.event.payload_json);

  release::EventBuffer& buffer = pipeline.Events(0);
  EXPECT_EQ(buffer.size(), 2u);
  release::EpochEvents taken = ArrangeEpochEvents(buffer.Take(now + 1), now - 20000);
  ASSERT_EQ(taken.current.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(taken.current[i], stored[i].event) << "the buffer must hold what state holds";
    EXPECT_EQ(taken.current_keys[i], std::make_pair(stored[i].ts_ms, stored[i].offset));
  }
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
    state::IngestWrite w(*store_);
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
  const std::vector<release::KeyedEvent> stored = StoredEvents(0);
  ASSERT_EQ(stored.size(), 2u);
  EXPECT_NE(stored[0].event.payload_json.find("location"), std::string::npos);
  EXPECT_EQ(stored[1].event.payload_json.find("location"), std::string::npos) << "never stored raw";
  EXPECT_EQ(stored[1].event.payload_json.find("200"), std::string::npos);
  // Counted once: the next batch reports only its own.
  pipeline.Process({{0, 2, kVin, Message(now - 500)}}, now);
  EXPECT_EQ(metrics.payload_malformed_fields.Value(), 1);
}

}  // namespace
}  // namespace vanon::service
