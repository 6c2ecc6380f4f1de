// Shared helpers for the EventParser tests: a default-format event whose
// fields can be replaced or dropped one at a time.

#ifndef VANON_TESTS_INGEST_EVENT_FIXTURES_H_
#define VANON_TESTS_INGEST_EVENT_FIXTURES_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "vanon/ingest/event_parser.h"

namespace vanon::ingest {
namespace testing_ingest {

inline constexpr char kVin[] = "WDCGG8HB0AF462890";
inline constexpr char kTrip[] = "b7c1e0f2-trip";
inline constexpr char kArtist[] = "Kid Cudi";
// 2025-11-22T10:00:00Z, the parser's "now" in every test.
inline constexpr std::int64_t kNowMs = 1763805600000;
inline constexpr std::int64_t kTsMs = 1763805600123;

// Raw JSON text of each top-level field; nullopt leaves the field out.
struct EventFields {
  std::optional<std::string> vin = std::string("\"") + kVin + "\"";
  std::optional<std::string> trip = std::string("\"") + kTrip + "\"";
  std::optional<std::string> ts = "1763805600123";
  std::optional<std::string> event = "\"media_track_changed\"";
  std::optional<std::string> payload = std::string(R"({"artist": ")") + kArtist + R"(", "source": "bluetooth"})";
};

inline std::string EventJson(const EventFields& f = EventFields()) {
  std::string out = "{";
  auto add = [&out](const char* name, const std::optional<std::string>& v) {
    if (!v) return;
    if (out.size() > 1) out += ", ";
    out += std::string("\"") + name + "\": " + *v;
  };
  add("vin", f.vin);
  add("trip_id", f.trip);
  add("ts", f.ts);
  add("event", f.event);
  add("payload", f.payload);
  return out + "}";
}

// Asserts that no raw identifying value leaks into a rejection detail.
inline void ExpectDetailIsClean(const Rejection& r) {
  EXPECT_EQ(r.detail.find(kVin), std::string::npos) << r.detail;
  EXPECT_EQ(r.detail.find(kTrip), std::string::npos) << r.detail;
  EXPECT_EQ(r.detail.find(kArtist), std::string::npos) << r.detail;
  EXPECT_FALSE(r.detail.empty());
}

// Parses `json` expecting a rejection with `reason`; returns it.
// Failure messages show at most the start of a (possibly 10 MB) input.
inline std::string Shown(const std::string& json) { return json.size() <= 300 ? json : json.substr(0, 300) + "..."; }

inline Rejection ExpectRejected(EventParser& parser, const std::string& json, RejectReason reason,
                                std::string_view key = "") {
  ParsedEvent event;
  Rejection rejection;
  EXPECT_FALSE(parser.Parse(key, json, kNowMs, &event, &rejection)) << Shown(json);
  EXPECT_EQ(RejectReasonName(rejection.reason), RejectReasonName(reason))
      << Shown(json) << "\n detail: " << rejection.detail;
  ExpectDetailIsClean(rejection);
  return rejection;
}

// An empty `key` stands for the body's VIN, as a well-behaved producer
// sends it (a message without a key is rejected as missing_key, and only
// once every other check passed).
inline ParsedEvent ExpectAccepted(EventParser& parser, const std::string& json, std::string_view key = "") {
  ParsedEvent event;
  Rejection rejection;
  std::string vin;
  if (key.empty() && !parser.Parse("", json, kNowMs, &event, &rejection) &&
      rejection.reason == RejectReason::kMissingKey) {
    vin = event.vin;
    key = vin;
  }
  EXPECT_TRUE(parser.Parse(key, json, kNowMs, &event, &rejection))
      << Shown(json) << "\n rejected as " << RejectReasonName(rejection.reason) << ": " << rejection.detail;
  return event;
}

}  // namespace testing_ingest
}  // namespace vanon::ingest

#endif  // VANON_TESTS_INGEST_EVENT_FIXTURES_H_
