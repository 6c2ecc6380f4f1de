// The parser faces untrusted bytes: whatever arrives, it must return a
// rejection with a known reason (or a valid event), never crash, and never
// echo an identifier into the rejection detail.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "event_fixtures.h"
#include "vanon/ingest/event_parser.h"
#include "base/vin.h"

namespace vanon::ingest {
namespace {

using namespace testing_ingest;

std::vector<std::string> ValidEvents() {
  EventFields rfc;
  rfc.ts = "\"2025-11-22T10:00:00.123+01:00\"";
  EventFields unicode;
  unicode.payload = R"({"artist": "Sigur R\u00f3s Björk 東京 🚗", "n": [1, 2.5, {"x": null}]})";
  return {EventJson(), EventJson(rfc), EventJson(unicode)};
}

TEST(EventParserMalformedTest, ValidFixturesAreAccepted) {
  EventParser parser(FieldMapping{}, ValidationLimits{});
  for (const std::string& json : ValidEvents()) ExpectAccepted(parser, json);
}

TEST(EventParserMalformedTest, EveryTruncatedPrefixIsRejected) {
  EventParser parser(FieldMapping{}, ValidationLimits{});
  for (const std::string& json : ValidEvents()) {
    for (std::size_t n = 0; n < json.size(); ++n) {
      ParsedEvent event;
      Rejection r;
      ASSERT_FALSE(parser.Parse("", json.substr(0, n), kNowMs, &event, &r)) << "prefix " << n << " of " << json;
      // A cut inside a multi-byte character is invalid UTF-8; anything else
      // is an unterminated document.
      EXPECT_TRUE(r.reason == RejectReason::kBrokenJson || r.reason == RejectReason::kInvalidUtf8)
          << n << ": " << RejectReasonName(r.reason);
      ExpectDetailIsClean(r);
    }
  }
}

TEST(EventParserMalformedTest, TenMegabyteMessages) {
  const std::size_t ten_mb = 10 * 1024 * 1024;
  EventFields f;
  f.payload = R"({"blob": ")" + std::string(ten_mb, 'a') + R"("})";
  const std::string big_event = EventJson(f);

  EventParser default_limits(FieldMapping{}, ValidationLimits{});
  ExpectRejected(default_limits, big_event, RejectReason::kTooLarge);
  ExpectRejected(default_limits, std::string(ten_mb, '['), RejectReason::kTooLarge);

  ValidationLimits roomy;
  roomy.max_message_bytes = 16 * 1024 * 1024;
  EventParser parser(FieldMapping{}, roomy);
  EXPECT_EQ(ExpectAccepted(parser, big_event).payload_json.size(), ten_mb + 11);
  ExpectRejected(parser, std::string(ten_mb / 2, '[') + std::string(ten_mb / 2, ']'), RejectReason::kTooDeep);
  // Unterminated: not a JSON document at all, whatever its depth.
  ExpectRejected(parser, std::string(ten_mb, '['), RejectReason::kBrokenJson);
  ExpectRejected(parser, std::string(ten_mb, ' '), RejectReason::kBrokenJson);
  ExpectRejected(parser, std::string(ten_mb, '\xff'), RejectReason::kInvalidUtf8);
  ExpectRejected(parser, "{\"a\": \"" + std::string(ten_mb, 'a'), RejectReason::kBrokenJson);
}

TEST(EventParserMalformedTest, InvalidUtf8Sequences) {
  EventParser parser(FieldMapping{}, ValidationLimits{});
  const std::vector<std::string> bad = {
      "\xc0\xaf",          // overlong '/'
      "\xe0\x80\xaf",      // overlong, three bytes
      "\xf0\x80\x80\xaf",  // overlong, four bytes
      "\xed\xa0\x80",      // UTF-16 high surrogate U+D800
      "\xed\xbf\xbf",      // low surrogate U+DFFF
      "\x80",              // lone continuation byte
      "\xbf\xbf",          // continuations without a lead
      "\xe2\x82",          // truncated three-byte sequence
      "\xf4\x90\x80\x80",  // above U+10FFFF
      "\xfe",
      "\xff",  // never valid in UTF-8
  };
  for (const std::string& seq : bad) {
    EventFields in_string;
    in_string.trip = "\"t" + seq + "\"";
    ExpectRejected(parser, EventJson(in_string), RejectReason::kInvalidUtf8);
    EventFields in_vin;
    in_vin.vin = "\"WDCGG8HB0AF46289" + seq + "\"";
    ExpectRejected(parser, EventJson(in_vin), RejectReason::kInvalidUtf8);
    EventFields in_key;
    in_key.payload = "{\"" + seq + "\": 1}";
    ExpectRejected(parser, EventJson(in_key), RejectReason::kInvalidUtf8);
    ExpectRejected(parser, seq + EventJson(), RejectReason::kInvalidUtf8);
  }
}

// Invalid UTF-8 is the reason even where the same document has another
// fault that a JSON parser meets first (checked before parsing, step 2).
TEST(EventParserMalformedTest, InvalidUtf8WinsOverOtherFaultsOfTheSameDocument) {
  EventParser parser(FieldMapping{}, ValidationLimits{});
  for (const std::string& seq : {std::string("\xff"), std::string("\xc0\xaf"), std::string("\xed\xa0\x80")}) {
    EventFields control;
    control.trip = "\"t\x01" + seq + "\"";  // an unescaped control character before it
    ExpectRejected(parser, EventJson(control), RejectReason::kInvalidUtf8);
    ExpectRejected(parser, "{\"vin\": tru, \"x\": \"" + seq + "\"}", RejectReason::kInvalidUtf8);
    ExpectRejected(parser, EventJson() + "}" + seq, RejectReason::kInvalidUtf8);
    ExpectRejected(parser, "{\"unterminated\": \"" + seq, RejectReason::kInvalidUtf8);
    ExpectRejected(parser, std::string(200, '[') + seq + std::string(200, ']'), RejectReason::kInvalidUtf8);
  }
}

TEST(EventParserMalformedTest, EscapedLoneSurrogatesAreBrokenJson) {
  EventParser parser(FieldMapping{}, ValidationLimits{});
  for (const char* s : {R"("\ud800")", R"("\udc00")", R"("\ud800\u0041")"}) {
    EventFields f;
    f.payload = std::string(R"({"artist": )") + s + "}";
    ExpectRejected(parser, EventJson(f), RejectReason::kBrokenJson);
  }
  EventFields paired;
  paired.payload = R"({"artist": "\ud83d\ude97"})";  // a valid pair
  ExpectAccepted(parser, EventJson(paired));
}

TEST(EventParserMalformedTest, NestingDepthTenThousand) {
  EventParser parser(FieldMapping{}, ValidationLimits{});
  const int depth = 10000;
  EventFields arrays;
  arrays.payload = "{\"x\": " + std::string(depth, '[') + std::string(depth, ']') + "}";
  ExpectRejected(parser, EventJson(arrays), RejectReason::kTooDeep);

  std::string objects;
  for (int i = 0; i < depth; ++i) objects += "{\"a\":";
  objects += "1";
  objects += std::string(depth, '}');
  EventFields nested;
  nested.payload = objects;
  ExpectRejected(parser, EventJson(nested), RejectReason::kTooDeep);
  // Unterminated deep nesting is a syntax error first (checked before depth).
  ExpectRejected(parser, std::string(depth, '['), RejectReason::kBrokenJson);
}

TEST(EventParserMalformedTest, FirstOfSyntaxOrDepthProblemWins) {
  ValidationLimits limits;
  limits.max_depth = 4;
  EventParser parser(FieldMapping{}, limits);
  const std::string deep = "[[[[[1]]]]]";  // level 6 inside the payload
  EventFields deep_first;
  deep_first.payload = R"({"d": )" + deep + R"(, "e": tru})";
  ExpectRejected(parser, EventJson(deep_first), RejectReason::kTooDeep);
  EventFields syntax_first;
  syntax_first.payload = R"({"e": tru, "d": )" + deep + "}";
  ExpectRejected(parser, EventJson(syntax_first), RejectReason::kBrokenJson);
}

struct WrongTypeCase {
  const char* field;
  std::vector<std::string> values;
};

TEST(EventParserMalformedTest, EveryFieldWithEveryWrongJsonType) {
  EventParser parser(FieldMapping{}, ValidationLimits{});
  const std::vector<std::string> not_strings = {"0",     "-1", "1.5",          "1e3", "true",
                                                "false", "{}", R"({"a":"b"})", "[]",  R"(["WDCGG8HB0AF462890"])"};
  const std::vector<std::string> not_timestamps = {
      "true",     "false", "1763805600123.0",   "1.7638056001e12", "1.5", "{}", "[]", "[1763805600123]",
      R"("abc")", R"("")", R"("1763805600123")"};
  const std::vector<std::string> not_objects = {"0", "1.5", "true", "false", R"("{}")", "[]", R"([{"a":1}])"};
  for (int field = 0; field < 5; ++field) {
    const std::vector<std::string>& values = field == 2 ? not_timestamps : field == 4 ? not_objects : not_strings;
    for (const std::string& v : values) {
      EventFields f;
      std::optional<std::string>* slots[] = {&f.vin, &f.trip, &f.ts, &f.event, &f.payload};
      *slots[field] = v;
      ExpectRejected(parser, EventJson(f), RejectReason::kWrongType);
    }
    EventFields null_field;
    std::optional<std::string>* slots[] = {&null_field.vin, &null_field.trip, &null_field.ts, &null_field.event,
                                           &null_field.payload};
    *slots[field] = "null";
    ExpectRejected(parser, EventJson(null_field), RejectReason::kMissingField);
  }
}

TEST(EventParserMalformedTest, NanInfinityAndHugeNumbers) {
  EventParser parser(FieldMapping{}, ValidationLimits{});
  for (const char* s : {R"("NaN")", R"("Infinity")", R"("-Infinity")", R"("1e400")"}) {
    EventFields f;
    f.ts = s;
    ExpectRejected(parser, EventJson(f), RejectReason::kWrongType);
  }
  // Not JSON at all, or not representable: the document is refused.
  for (const char* s :
       {"NaN", "Infinity", "-Infinity", "1e400", "-1e400", "99999999999999999999", "-9223372036854775809"}) {
    EventFields as_ts;
    as_ts.ts = s;
    ExpectRejected(parser, EventJson(as_ts), RejectReason::kBrokenJson);
    EventFields in_payload;
    in_payload.payload = std::string(R"({"speed": )") + s + "}";
    ExpectRejected(parser, EventJson(in_payload), RejectReason::kBrokenJson);
  }
  // Fits uint64 but not int64: well-formed, but no such millisecond time.
  EventFields huge;
  huge.ts = "18446744073709551615";
  ExpectRejected(parser, EventJson(huge), RejectReason::kTimestampOutOfRange);
}

TEST(EventParserMalformedTest, EmptyAndNonObjectDocuments) {
  EventParser parser(FieldMapping{}, ValidationLimits{});
  ExpectRejected(parser, "", RejectReason::kBrokenJson);
  ExpectRejected(parser, "   \n\t ", RejectReason::kBrokenJson);
  ExpectRejected(parser, "{", RejectReason::kBrokenJson);
  ExpectRejected(parser, "}", RejectReason::kBrokenJson);
  ExpectRejected(parser, "{}", RejectReason::kMissingField);
  ExpectRejected(parser, "[]", RejectReason::kWrongType);
  ExpectRejected(parser, "null", RejectReason::kWrongType);
  ExpectRejected(parser, "42", RejectReason::kWrongType);
  ExpectRejected(parser, R"("WDCGG8HB0AF462890")", RejectReason::kWrongType);
  ExpectRejected(parser, EventJson() + EventJson(), RejectReason::kBrokenJson);
  ExpectRejected(parser, EventJson() + ",", RejectReason::kBrokenJson);
}

TEST(EventParserMalformedTest, NulBytes) {
  EventParser parser(FieldMapping{}, ValidationLimits{});
  const std::string nul(1, '\0');
  EventFields raw_in_string;
  raw_in_string.trip = "\"t" + nul + "1\"";
  ExpectRejected(parser, EventJson(raw_in_string), RejectReason::kBrokenJson);
  ExpectRejected(parser, EventJson() + nul, RejectReason::kBrokenJson);
  ExpectRejected(parser, nul + EventJson(), RejectReason::kBrokenJson);
  ExpectRejected(parser, nul, RejectReason::kBrokenJson);

  EventFields escaped_in_vin;
  escaped_in_vin.vin = R"("WDCGG8HB0AF46289\u0000")";
  ExpectRejected(parser, EventJson(escaped_in_vin), RejectReason::kInvalidVin);
  // An escaped NUL is legal JSON text; the trip id is only ever hashed.
  EventFields escaped_in_trip;
  escaped_in_trip.trip = R"("t\u00001")";
  EXPECT_EQ(ExpectAccepted(parser, EventJson(escaped_in_trip)).trip_id, std::string("t") + nul + "1");
}

// Random byte mutations of valid events: the outcome must always be a known
// reason or an event that satisfies every invariant.
TEST(EventParserMalformedTest, RandomMutationsNeverBreakInvariants) {
  FieldMapping mapping;
  mapping.extras = {"payload.artist", "payload.n"};
  EventParser parser(mapping, ValidationLimits{});
  std::mt19937 rng(20251122);
  const std::vector<std::string> seeds = ValidEvents();
  const std::string alphabet = "{}[]\":,\\ 0123456789.eE+-tfnulAZ\x80\xff";
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string json = seeds[i % seeds.size()];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !json.empty(); ++e) {
      const std::size_t at = rng() % json.size();
      switch (rng() % 3) {
        case 0:
          json[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          json.erase(at, 1);
          break;
        case 2:
          json.insert(at, 1, alphabet[rng() % alphabet.size()]);
          break;
      }
    }
    ParsedEvent event;
    Rejection r;
    if (parser.Parse(kVin, json, kNowMs, &event, &r)) {
      ++accepted;
      ASSERT_TRUE(base::IsValidVin(event.vin)) << json;
      ASSERT_FALSE(event.trip_id.empty());
      ASSERT_FALSE(event.event.empty());
      ASSERT_EQ(event.extras.size(), 2u);
      ASSERT_TRUE(event.payload_json.size() >= 2 && event.payload_json.front() == '{' &&
                  event.payload_json.back() == '}');
    } else {
      ASSERT_NE(RejectReasonName(r.reason), "unknown");
      ASSERT_EQ(r.detail.find(kVin), std::string::npos) << r.detail;
    }
  }
  // Some mutations only touch whitespace or values; both outcomes occur.
  EXPECT_GT(accepted, 0);
  EXPECT_LT(accepted, 20000);
}

}  // namespace
}  // namespace vanon::ingest
