#include "event_format.h"

#include "base/hex.h"
#include "json_append.h"

namespace vanon::fleet::internal {

namespace {

enum Reason : size_t {
  kBrokenJson,
  kMissingField,
  kWrongType,
  kInvalidVin,
  kTimestampOutOfRange,
  kTooLarge,
  kInvalidUtf8,
  kTooDeep,
};

constexpr int64_t kYear2000Ms = 946684800000;   // ingest's default minimum
constexpr int64_t kYear2100Ms = 4102444800000;  // beyond any "now + 1 day"

void AppendSpeedEvent(std::string& out, std::string_view vin, uint64_t trip, int64_t ts) {
  AppendEventHead(out, vin, trip, ts, "vehicle_speed");
  out.append("{\"speed_kmh\":42.0}}");
}

}  // namespace

void AppendEventHead(std::string& out, std::string_view vin, uint64_t trip_id, int64_t ts_ms, std::string_view event) {
  out.append("{\"vin\":\"");
  out.append(vin);
  out.append("\",\"trip_id\":\"");
  base::AppendHex64(&out, trip_id);
  out.append("\",\"ts\":");
  AppendInt(out, ts_ms);
  out.append(",\"event\":\"");
  out.append(event);
  out.append("\",\"payload\":");
}

namespace {

void WriteMissingField(uint64_t variant, const MalformedInput& in, std::string& out) {
  static constexpr std::string_view kDropped[] = {"trip_id", "ts", "event"};
  const std::string_view dropped = kDropped[variant % 3];
  out.append("{\"vin\":\"").append(in.vin).append("\"");
  if (dropped != "trip_id") {
    out.append(",\"trip_id\":\"");
    base::AppendHex64(&out, in.trip_id);
    out += '"';
  }
  if (dropped != "ts") {
    out.append(",\"ts\":");
    AppendInt(out, in.ts_ms);
  }
  if (dropped != "event") out.append(",\"event\":\"vehicle_speed\"");
  out.append(",\"payload\":{\"speed_kmh\":42.0}}");
}

void WriteWrongType(uint64_t variant, const MalformedInput& in, std::string& out) {
  if (variant % 2 == 0) {
    out.append("{\"vin\":\"").append(in.vin).append("\",\"trip_id\":\"");
    base::AppendHex64(&out, in.trip_id);
    out.append("\",\"ts\":");
    AppendInt(out, in.ts_ms);
    out.append(",\"event\":42,\"payload\":{}}");  // event must be a string
  } else {
    out.append("{\"vin\":\"").append(in.vin).append("\",\"trip_id\":true,\"ts\":");
    AppendInt(out, in.ts_ms);
    out.append(",\"event\":\"touchscreen_used\",\"payload\":{}}");
  }
}

void WriteInvalidVin(uint64_t variant, const MalformedInput& in, std::string* key, std::string& out) {
  std::string vin(in.vin);
  switch (variant % 3) {
    case 0:
      vin[11] = 'O';  // a letter ISO 3779 forbids
      break;
    case 1:
      vin.pop_back();  // 16 characters
      break;
    default:
      break;  // valid body VIN, but the key names another vehicle
  }
  const bool mismatch = variant % 3 == 2 && in.other_vin != in.vin;
  if (variant % 3 == 2 && !mismatch) vin[11] = 'O';
  key->assign(mismatch ? in.other_vin : std::string_view(vin));
  AppendSpeedEvent(out, vin, in.trip_id, in.ts_ms);
}

}  // namespace

void WriteMalformed(size_t reason, uint64_t variant, const MalformedInput& in, base::Random& rng, std::string* key,
                    std::string* value) {
  std::string& out = *value;
  key->assign(in.vin);
  switch (reason) {
    case kBrokenJson: {
      // Any proper prefix of an object is incomplete JSON; the event is
      // ASCII, so no cut lands inside a UTF-8 sequence.
      AppendSpeedEvent(out, in.vin, in.trip_id, in.ts_ms);
      out.resize(1 + rng.Below(out.size() - 1));
      break;
    }
    case kMissingField:
      WriteMissingField(variant, in, out);
      break;
    case kWrongType:
      WriteWrongType(variant, in, out);
      break;
    case kInvalidVin:
      WriteInvalidVin(variant, in, key, out);
      break;
    case kTimestampOutOfRange: {
      const int64_t ts = variant % 2 == 0 ? kYear2000Ms - 1 - static_cast<int64_t>(rng.Below(86400000ull * 365))
                                          : kYear2100Ms + static_cast<int64_t>(rng.Below(86400000ull * 365));
      AppendSpeedEvent(out, in.vin, in.trip_id, ts);
      break;
    }
    case kTooLarge: {
      AppendEventHead(out, in.vin, in.trip_id, in.ts_ms, "diagnostic_dump");
      out.append("{\"blob\":\"");
      out.append(in.max_message_bytes + 4096, 'A');
      out.append("\"}}");
      break;
    }
    case kInvalidUtf8: {
      // Mis-encoded artist names as they come from broken head units.
      static constexpr std::string_view kBroken[] = {"Bj\xF6rk",                // Latin-1 o-umlaut
                                                     "Beyonc\xC3",              // truncated two-byte sequence
                                                     "Sigur R\xC3\xB3s \xFF"};  // 0xFF never occurs in UTF-8
      AppendEventHead(out, in.vin, in.trip_id, in.ts_ms, "media_track_changed");
      out.append("{\"artist\":\"");
      out.append(kBroken[variant % 3]);
      out.append("\",\"source\":\"bluetooth\"}}");
      break;
    }
    case kTooDeep:
    default: {
      AppendEventHead(out, in.vin, in.trip_id, in.ts_ms, "touchscreen_used");
      for (int i = 0; i < kTooDeepLevels; ++i) out.append("{\"menu\":");
      out.append("{}");
      for (int i = 0; i < kTooDeepLevels; ++i) out += '}';
      out += '}';
      break;
    }
  }
}

}  // namespace vanon::fleet::internal
