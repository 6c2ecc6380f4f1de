#include "vanon/ingest/event_parser.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "event_fixtures.h"

namespace vanon::ingest {
namespace {

using namespace testing_ingest;

TEST(EventParserTest, ParsesDefaultFormatWithMillisecondTimestamp) {
  EventParser parser(FieldMapping{}, ValidationLimits{});
  const ParsedEvent e = ExpectAccepted(parser, EventJson(), kVin);
  EXPECT_EQ(e.vin, kVin);
  EXPECT_EQ(e.trip_id, kTrip);
  EXPECT_EQ(e.ts_ms, 1763805600123);
  EXPECT_EQ(e.event, "media_track_changed");
  EXPECT_EQ(e.payload_json, R"({"artist":"Kid Cudi","source":"bluetooth"})");
  EXPECT_TRUE(e.extras.empty());
}

TEST(EventParserTest, ParsesRfc3339Timestamps) {
  EventParser parser(FieldMapping{}, ValidationLimits{});
  EventFields f;
  f.ts = "\"2025-11-22T10:00:00.123Z\"";
  EXPECT_EQ(ExpectAccepted(parser, EventJson(f)).ts_ms, 1763805600123);
  f.ts = "\"2025-11-22T10:00:00+01:00\"";
  EXPECT_EQ(ExpectAccepted(parser, EventJson(f)).ts_ms, 1763802000000);
}

// Without the VIN as key a producer spreads one vehicle over partitions.
TEST(EventParserTest, EmptyKeyIsRejected) {
  EventParser parser(FieldMapping{}, ValidationLimits{});
  const Rejection r = ExpectRejected(parser, EventJson(), RejectReason::kMissingKey, "");
  EXPECT_EQ(r.detail.find(kVin), std::string::npos) << r.detail;
}

TEST(EventParserTest, KeyMismatchIsInvalidVin) {
  EventParser parser(FieldMapping{}, ValidationLimits{});
  const Rejection r = ExpectRejected(parser, EventJson(), RejectReason::kInvalidVin, "WDCGG8HB0AF462891");
  EXPECT_EQ(r.detail, "key does not match body VIN");
  EXPECT_EQ(r.detail.find("WDCGG8HB0AF462891"), std::string::npos);
}

TEST(EventParserTest, InvalidVinIsRejectedWithoutEchoingIt) {
  EventParser parser(FieldMapping{}, ValidationLimits{});
  for (const char* vin : {"wdcgg8hb0af462890", "WDCGG8HB0AF46289", "WDCGG8HB0AF4628900", "WDCGG8HB0AF46289O", ""}) {
    EventFields f;
    f.vin = std::string("\"") + vin + "\"";
    const Rejection r = ExpectRejected(parser, EventJson(f), RejectReason::kInvalidVin);
    if (*vin) {
      EXPECT_EQ(r.detail.find(vin), std::string::npos) << r.detail;
    }
  }
}

TEST(EventParserTest, MissingRequiredFields) {
  EventParser parser(FieldMapping{}, ValidationLimits{});
  for (int i = 0; i < 5; ++i) {
    EventFields f;
    std::optional<std::string>* fields[] = {&f.vin, &f.trip, &f.ts, &f.event, &f.payload};
    fields[i]->reset();
    ExpectRejected(parser, EventJson(f), RejectReason::kMissingField);
  }
  ExpectRejected(parser, "{}", RejectReason::kMissingField);
}

TEST(EventParserTest, EmptyTripOrEventIsMissing) {
  EventParser parser(FieldMapping{}, ValidationLimits{});
  EventFields f;
  f.trip = "\"\"";
  ExpectRejected(parser, EventJson(f), RejectReason::kMissingField);
  f = EventFields();
  f.event = "\"\"";
  ExpectRejected(parser, EventJson(f), RejectReason::kMissingField);
}

TEST(EventParserTest, OptionalPayloadDefaultsToEmptyObject) {
  FieldMapping mapping;
  mapping.payload_required = false;
  EventParser parser(mapping, ValidationLimits{});
  EventFields f;
  f.payload.reset();
  EXPECT_EQ(ExpectAccepted(parser, EventJson(f)).payload_json, "{}");
  f.payload = "null";
  EXPECT_EQ(ExpectAccepted(parser, EventJson(f)).payload_json, "{}");
  f.payload = "[]";
  ExpectRejected(parser, EventJson(f), RejectReason::kWrongType);
}

TEST(EventParserTest, WrongTypes) {
  EventParser parser(FieldMapping{}, ValidationLimits{});
  EventFields f;
  f.ts = "true";
  ExpectRejected(parser, EventJson(f), RejectReason::kWrongType);
  f = EventFields();
  f.payload = "\"not an object\"";
  ExpectRejected(parser, EventJson(f), RejectReason::kWrongType);
  ExpectRejected(parser, "[" + EventJson() + "]", RejectReason::kWrongType);
}

TEST(EventParserTest, TimestampRangeIsInclusive) {
  ValidationLimits limits;
  limits.min_timestamp_ms = 946684800000;
  limits.max_future_ms = 60000;
  EventParser parser(FieldMapping{}, limits);
  EventFields f;
  f.ts = "946684800000";
  EXPECT_EQ(ExpectAccepted(parser, EventJson(f)).ts_ms, 946684800000);
  f.ts = "946684799999";
  ExpectRejected(parser, EventJson(f), RejectReason::kTimestampOutOfRange);
  f.ts = std::to_string(kNowMs + 60000);
  EXPECT_EQ(ExpectAccepted(parser, EventJson(f)).ts_ms, kNowMs + 60000);
  f.ts = std::to_string(kNowMs + 60001);
  ExpectRejected(parser, EventJson(f), RejectReason::kTimestampOutOfRange);
  f.ts = "\"1999-12-31T23:59:59.999Z\"";
  ExpectRejected(parser, EventJson(f), RejectReason::kTimestampOutOfRange);
  f.ts = "-1";
  ExpectRejected(parser, EventJson(f), RejectReason::kTimestampOutOfRange);
}

TEST(EventParserTest, HugeMaxFutureDoesNotOverflow) {
  ValidationLimits limits;
  limits.max_future_ms = std::numeric_limits<std::int64_t>::max();
  EventParser parser(FieldMapping{}, limits);
  EventFields f;
  f.ts = "9223372036854775807";
  EXPECT_EQ(ExpectAccepted(parser, EventJson(f)).ts_ms, std::numeric_limits<std::int64_t>::max());
}

TEST(EventParserTest, TooLargeIsCheckedFirst) {
  const std::string json = EventJson();
  ValidationLimits limits;
  limits.max_message_bytes = json.size();
  EventParser parser(FieldMapping{}, limits);
  ExpectAccepted(parser, json);
  ExpectRejected(parser, json + " ", RejectReason::kTooLarge);
  // Too large wins over invalid UTF-8 and broken JSON.
  ExpectRejected(parser, json + "\xff", RejectReason::kTooLarge);
}

TEST(EventParserTest, InvalidUtf8IsCheckedBeforeJson) {
  EventParser parser(FieldMapping{}, ValidationLimits{});
  EventFields f;
  f.trip = "\"b7c1\xff\"";
  ExpectRejected(parser, EventJson(f), RejectReason::kInvalidUtf8);
  ExpectRejected(parser, "{\"vin\": \"\xc3", RejectReason::kInvalidUtf8);
}

TEST(EventParserTest, DepthLimitCountsNonEmptyContainers) {
  ValidationLimits limits;
  limits.max_depth = 3;
  EventParser parser(FieldMapping{}, limits);
  EventFields f;
  f.payload = R"({"a": {"b": 1}})";  // root 1, payload 2, a 3
  ExpectAccepted(parser, EventJson(f));
  f.payload = R"({"a": {"b": {}}})";  // an empty object adds no level
  ExpectAccepted(parser, EventJson(f));
  f.payload = R"({"a": {"b": [1]}})";  // level 4
  ExpectRejected(parser, EventJson(f), RejectReason::kTooDeep);
}

TEST(EventParserTest, DuplicatedMappedKeyIsBrokenJson) {
  EventParser parser(FieldMapping{}, ValidationLimits{});
  const std::string json = EventJson();
  // A second "vin" must not be able to override (or hide behind) the first.
  ExpectRejected(parser, json.substr(0, json.size() - 1) + R"(, "vin": "1M8GDM9AXKP042788"})",
                 RejectReason::kBrokenJson);
  EventFields f;
  f.payload = R"({"artist": "A", "artist": "B"})";
  ExpectRejected(parser, EventJson(f), RejectReason::kBrokenJson);
}

TEST(EventParserTest, DuplicatedUnmappedTopLevelKeyIsIgnored) {
  EventParser parser(FieldMapping{}, ValidationLimits{});
  const std::string json = EventJson();
  ExpectAccepted(parser, json.substr(0, json.size() - 1) + R"(, "note": 1, "note": 2})");
}

TEST(EventParserTest, ExtrasAreRenderedAsText) {
  FieldMapping mapping;
  mapping.extras = {"payload.artist", "payload.count",   "payload.ratio", "payload.flag",
                    "payload.none",   "payload.missing", "payload.big",   "event"};
  EventParser parser(mapping, ValidationLimits{});
  EventFields f;
  f.payload = R"({"artist": "Kid Cudi", "count": -42, "ratio": 0.25,
                  "flag": false, "none": null, "big": 18446744073709551615})";
  const ParsedEvent e = ExpectAccepted(parser, EventJson(f));
  ASSERT_EQ(e.extras.size(), 8u);
  EXPECT_EQ(e.extras[0], "Kid Cudi");
  EXPECT_EQ(e.extras[1], "-42");
  EXPECT_EQ(e.extras[2], "0.25");
  EXPECT_EQ(e.extras[3], "false");
  EXPECT_EQ(e.extras[4], std::nullopt);
  EXPECT_EQ(e.extras[5], std::nullopt);
  EXPECT_EQ(e.extras[6], "18446744073709551615");
  EXPECT_EQ(e.extras[7], "media_track_changed");
}

TEST(EventParserTest, ExtraThatIsAContainerIsWrongType) {
  FieldMapping mapping;
  mapping.extras = {"payload.artist"};
  EventParser parser(mapping, ValidationLimits{});
  EventFields f;
  f.payload = R"({"artist": {"name": "x"}})";
  ExpectRejected(parser, EventJson(f), RejectReason::kWrongType);
  f.payload = R"({"artist": ["x"]})";
  ExpectRejected(parser, EventJson(f), RejectReason::kWrongType);
}

TEST(EventParserTest, CustomNestedMapping) {
  FieldMapping mapping;
  mapping.vin = "vehicle.id";
  mapping.trip = "vehicle.trip";
  mapping.timestamp = "meta.time";
  mapping.event = "meta.kind";
  mapping.payload = "data";
  EventParser parser(mapping, ValidationLimits{});
  const ParsedEvent e = ExpectAccepted(parser,
                                       R"({"meta": {"time": "2025-11-22T10:00:00.123Z", "kind": "door_open"},
          "vehicle": {"id": "WDCGG8HB0AF462890", "trip": "t1"},
          "data": {"side": "left"}})");
  EXPECT_EQ(e.vin, kVin);
  EXPECT_EQ(e.trip_id, "t1");
  EXPECT_EQ(e.ts_ms, 1763805600123);
  EXPECT_EQ(e.event, "door_open");
  EXPECT_EQ(e.payload_json, R"({"side":"left"})");
  // A parent that is not an object is a type error on the mapped field.
  ExpectRejected(parser,
                 R"({"meta": 5, "vehicle": {"id": "WDCGG8HB0AF462890",
                     "trip": "t1"}, "data": {}})",
                 RejectReason::kWrongType);
}

TEST(EventParserTest, ConstructorRejectsBadConfiguration) {
  FieldMapping mapping;
  mapping.vin = "";
  EXPECT_THROW(EventParser(mapping, ValidationLimits{}), std::invalid_argument);
  mapping = FieldMapping();
  mapping.extras = {"payload..artist"};
  EXPECT_THROW(EventParser(mapping, ValidationLimits{}), std::invalid_argument);
  mapping.extras = {"payload."};
  EXPECT_THROW(EventParser(mapping, ValidationLimits{}), std::invalid_argument);
  ValidationLimits limits;
  limits.max_depth = 0;
  EXPECT_THROW(EventParser(FieldMapping{}, limits), std::invalid_argument);
}

TEST(EventParserTest, ReusedParserGivesIndependentResults) {
  FieldMapping mapping;
  mapping.extras = {"payload.artist"};
  EventParser parser(mapping, ValidationLimits{});
  ParsedEvent event;
  Rejection rejection;
  ASSERT_TRUE(parser.Parse(kVin, EventJson(), kNowMs, &event, &rejection));
  EXPECT_EQ(event.extras[0], kArtist);

  // A large message grows the internal buffers; later small ones still parse.
  EventFields big;
  big.payload = R"({"blob": ")" + std::string(200000, 'z') + R"("})";
  ASSERT_TRUE(parser.Parse(kVin, EventJson(big), kNowMs, &event, &rejection));
  EXPECT_EQ(event.extras[0], std::nullopt);
  EXPECT_EQ(event.payload_json.size(), 200000u + 11);

  EventFields other;
  other.trip = "\"t2\"";
  other.payload = R"({"artist": "Radio"})";
  ASSERT_TRUE(parser.Parse(kVin, EventJson(other), kNowMs, &event, &rejection));
  EXPECT_EQ(event.trip_id, "t2");
  EXPECT_EQ(event.extras[0], "Radio");
  EXPECT_EQ(event.payload_json, R"({"artist":"Radio"})");
}

}  // namespace
}  // namespace vanon::ingest
