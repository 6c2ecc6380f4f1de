// An independent reading of the default input format, written from
// privacy-model.md section 1 and the ingest rules (size, UTF-8, JSON,
// depth, fields), to check what the generator claims about each message.
#ifndef VANON_TESTS_FLEET_EVENT_CHECKS_H_
#define VANON_TESTS_FLEET_EVENT_CHECKS_H_

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace vanon::test {

inline bool IsUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t extra = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      extra = 1;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + extra >= s.size()) return false;
    for (size_t k = 1; k <= extra; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    if ((extra == 1 && cp < 0x80) || (extra == 2 && cp < 0x800) || (extra == 3 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += extra + 1;
  }
  return true;
}

// Nesting depth of a JSON value: a scalar is 0, {} is 1.
inline int Depth(simdjson::dom::element e) {
  int inner = 0;
  if (e.is_object()) {
    for (auto field : simdjson::dom::object(e)) inner = std::max(inner, Depth(field.value));
    return inner + 1;
  }
  if (e.is_array()) {
    for (auto item : simdjson::dom::array(e)) inner = std::max(inner, Depth(item));
    return inner + 1;
  }
  return 0;
}

inline bool IsVinText(std::string_view vin) {
  if (vin.size() != 17) return false;
  for (char c : vin) {
    const bool ok = (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z' && c != 'I' && c != 'O' && c != 'Q');
    if (!ok) return false;
  }
  return true;
}

constexpr int64_t kMin2000Ms = 946684800000;
constexpr int64_t kMin2100Ms = 4102444800000;

// The first rule a message breaks, in ingest order, or "" when it is a
// well-formed event. `key` is the Kafka key.
inline std::string FirstViolation(std::string_view key, const std::string& value) {
  if (value.size() > (1u << 20)) return "too_large";
  if (!IsUtf8(value)) return "invalid_utf8";
  static simdjson::dom::parser parser;  // reused: its buffers are costly to build
  simdjson::dom::element doc;
  if (parser.parse(value).get(doc) != simdjson::SUCCESS) return "broken_json";
  if (Depth(doc) > 16) return "too_deep";
  if (!doc.is_object()) return "wrong_type";
  for (const char* field : {"vin", "trip_id", "ts", "event", "payload"}) {
    if (doc[field].error() == simdjson::NO_SUCH_FIELD) return "missing_field";
  }
  if (!doc["vin"].is_string() || !doc["trip_id"].is_string() || !doc["event"].is_string() || !doc["ts"].is_int64() ||
      !doc["payload"].is_object()) {
    return "wrong_type";
  }
  const std::string_view vin = doc["vin"].get_string().value();
  if (!IsVinText(vin) || (!key.empty() && key != vin)) return "invalid_vin";
  const int64_t ts = doc["ts"].get_int64().value();
  if (ts < kMin2000Ms || ts >= kMin2100Ms) return "timestamp_out_of_range";
  return "";
}

}  // namespace vanon::test

#endif  // VANON_TESTS_FLEET_EVENT_CHECKS_H_
