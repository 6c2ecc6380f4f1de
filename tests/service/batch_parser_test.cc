// BatchParser against one EventParser over the same messages: large batches
// are parsed in chunks by two threads, and every result must be the one a
// single parser gives. Also built into the ThreadSanitizer pass.
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
  BatchParser batches(MakeParser, config.payload, /*split_at=*/128);
  release::PayloadTransformer payload(config.payload);
  std::unique_ptr<ingest::EventParser> one = MakeParser();
  one->SetPayloadSink(&payload);

  const int64_t now =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  // Sizes below and above the split, odd and even, and one that shrinks.
  // Results are read in order, skipping some (the pipeline skips what it has
  // accounted for), as the pipeline reads them.
  for (size_t size : {10u, 128u, 129u, 2000u, 1u, 777u, 300u}) {
    std::vector<std::string> values;
    std::vector<kafka::InputMessage> batch;
    for (size_t i = 0; i < size; ++i) values.push_back(Message(now, static_cast<int>(i + size)));
    for (size_t i = 0; i < size; ++i) batch.push_back({0, static_cast<int64_t>(i), kVin, values[i]});
    BatchParser::Batch parsing(&batches, batch, now);
    for (size_t i = 0; i < size; ++i) {
      ingest::ParsedEvent expected;
      ingest::Rejection rejection;
      const bool ok = one->Parse(batch[i].key, batch[i].value, now, &expected, &rejection);
      if (i % 9 == 4) continue;
      const BatchParser::Result& got = parsing.Get(i);
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
    parsing.End();
  }
  // Both threads' dropped fields, each once: every chunk had a message read,
  // so every message was parsed.
  EXPECT_EQ(batches.stats().malformed_fields, payload.stats().malformed_fields);
  EXPECT_GT(payload.stats().malformed_fields, 100u);
}

// A batch left after a few results (as when routing throws) must not leave
// the worker reading it, nor its chunks in the next batch's results.
TEST(BatchParserTest, ABatchLeftPartReadLeavesTheNextOneRight) {
  const config::Config config = DemoConfig();
  BatchParser batches(MakeParser, config.payload, /*split_at=*/128);
  std::unique_ptr<ingest::EventParser> one = MakeParser();
  release::PayloadTransformer payload(config.payload);
  one->SetPayloadSink(&payload);
  const int64_t now = 1'800'000'000'000;
  for (int round = 0; round < 20; ++round) {
    std::vector<std::string> first_values, second_values;
    std::vector<kafka::InputMessage> first, second;
    for (int i = 0; i < 3000; ++i) first_values.push_back(Message(now, i));
    for (int i = 0; i < 1000; ++i) second_values.push_back(Message(now, 5000 + i + round));
    for (size_t i = 0; i < first_values.size(); ++i)
      first.push_back({0, static_cast<int64_t>(i), kVin, first_values[i]});
    for (size_t i = 0; i < second_values.size(); ++i) {
      second.push_back({0, static_cast<int64_t>(i), kVin, second_values[i]});
    }
    {
      BatchParser::Batch parsing(&batches, first, now);
      for (size_t i = 0; i < static_cast<size_t>(round * 7); ++i) parsing.Get(i);
    }
    // The worker must be done with it (ASan and TSan would see it read).
    first.clear();
    first.shrink_to_fit();
    first_values.clear();
    BatchParser::Batch parsing(&batches, second, now);
    for (size_t i = 0; i < second.size(); ++i) {
      ingest::ParsedEvent expected;
      ingest::Rejection rejection;
      const bool ok = one->Parse(second[i].key, second[i].value, now, &expected, &rejection);
      const BatchParser::Result& got = parsing.Get(i);
      ASSERT_EQ(got.ok, ok) << round << " " << i;
      if (ok) {
        ASSERT_EQ(got.event.payload_json, expected.payload_json) << round << " " << i;
        ASSERT_EQ(got.event.ts_ms, expected.ts_ms) << round << " " << i;
      }
    }
  }
}

}  // namespace
}  // namespace vanon::service
