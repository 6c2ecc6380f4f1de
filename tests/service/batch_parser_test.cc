// BatchParser against one EventParser over the same messages: large batches
// are parsed in two halves on two threads, and every result must be the one
// a single parser gives. Also built into the ThreadSanitizer pass.
#include "service/ingest/batch_parser.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "vanon/config.h"

namespace vanon::service {
namespace {

constexpr const char* kVin = "WBA3A5C58CF256985";

config::Config DemoConfig() {
  return config::LoadConfig(std::string(VANON_SOURCE_DIR) + "/config/demo.yaml", {"state.dir=/nonexistent"});
}

std::unique_ptr<ingest::EventParser> MakeParser() {
  ingest::FieldMapping mapping;
  mapping.extras = {"payload.artist"};
  return std::make_unique<ingest::EventParser>(mapping, ingest::ValidationLimits{});
}

// Message i of a batch: every 7th is broken, every 5th has a location the
// grid cannot read (a dropped field), the rest differ in time and speed.
std::string Message(int64_t now, int i) {
  if (i % 7 == 3) return "{\"vin\":\"" + std::string(kVin) + "\",\"ts\":";
  const std::string lat = i % 5 == 1 ? "200" : "48.137154";
  return std::string("{\"vin\":\"") + kVin + "\",\"trip_id\":\"t" + std::to_string(i % 3) +
         "\",\"ts\":" + std::to_string(now - i) + ",\"event\":\"media_track_changed\",\"payload\":{\"artist\":\"A" +
         std::to_string(i % 11) + "\",\"speed_kmh\":" + std::to_string(i % 180) + ".5,\"location\":{\"lat\":" + lat +
         ",\"lon\":11.576124}}}";
}

TEST(BatchParserTest, EachResultIsWhatOneParserGivesForSmallAndSplitBatches) {
  const config::Config config = DemoConfig();
  BatchParser batches(MakeParser, config.payload, /*split_at=*/64);
  release::PayloadTransformer payload(config.payload);
  std::unique_ptr<ingest::EventParser> one = MakeParser();
  one->SetPayloadSink(&payload);

  const int64_t now =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  // Sizes below and above the split, odd and even, and one that shrinks.
  for (size_t size : {10u, 64u, 65u, 2000u, 1u, 777u, 300u}) {
    std::vector<std::string> values;
    std::vector<kafka::InputMessage> batch;
    for (size_t i = 0; i < size; ++i) values.push_back(Message(now, static_cast<int>(i + size)));
    for (size_t i = 0; i < size; ++i) batch.push_back({0, static_cast<int64_t>(i), kVin, values[i]});
    batches.Parse(batch, now);
    for (size_t i = 0; i < size; ++i) {
      ingest::ParsedEvent expected;
      ingest::Rejection rejection;
      const bool ok = one->Parse(batch[i].key, batch[i].value, now, &expected, &rejection);
      const BatchParser::Result& got = batches.result(i);
      ASSERT_EQ(got.ok, ok) << size << " " << i;
      if (ok) {
        EXPECT_EQ(got.event.payload_json, expected.payload_json) << size << " " << i;
        EXPECT_EQ(got.event.ts_ms, expected.ts_ms);
        EXPECT_EQ(got.event.trip_id, expected.trip_id);
        EXPECT_EQ(got.event.extras, expected.extras);
      } else {
        EXPECT_EQ(got.rejection.reason, rejection.reason);
        EXPECT_EQ(got.rejection.detail, rejection.detail);
      }
    }
  }
  // Both halves' dropped fields, each once.
  EXPECT_EQ(batches.stats().malformed_fields, payload.stats().malformed_fields);
  EXPECT_GT(payload.stats().malformed_fields, 100u);
}

}  // namespace
}  // namespace vanon::service
