#include "vanon/ingest/event_parser.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>

#include "base/vin.h"
#include "json_path.h"
#include "vanon/ingest/rfc3339.h"

namespace vanon::ingest {

using internal::JsonPath;
using internal::Lookup;

namespace {

// simdjson grows its buffers on demand; start small so that a parser for a
// 1 MiB limit does not pin tens of MiB it will rarely use.
constexpr std::size_t kInitialCapacity = 64 * 1024;

// string::assign goes through _M_replace, which allows for `s` pointing
// into *out; a parsed field never does, and clear + append copies into the
// reused capacity with less work (three fields of every event).
void Assign(std::string* out, std::string_view s) {
  out->clear();
  out->append(s);
}

bool Reject(Rejection* rejection, RejectReason reason, std::string detail) {
  rejection->reason = reason;
  rejection->detail = std::move(detail);
  return false;
}

// Renders a scalar as text; false for containers.
bool ScalarText(simdjson::dom::element value, std::string* out) {
  char buf[32];
  std::to_chars_result r{};
  switch (value.type()) {
    case simdjson::dom::element_type::STRING: {
      Assign(out, value.get_string().value_unsafe());
      return true;
    }
    case simdjson::dom::element_type::INT64:
      r = std::to_chars(buf, buf + sizeof(buf), value.get_int64().value_unsafe());
      break;
    case simdjson::dom::element_type::UINT64:
      r = std::to_chars(buf, buf + sizeof(buf), value.get_uint64().value_unsafe());
      break;
    case simdjson::dom::element_type::DOUBLE:
      // Shortest text that reads back as the same double.
      r = std::to_chars(buf, buf + sizeof(buf), value.get_double().value_unsafe());
      break;
    case simdjson::dom::element_type::BOOL:
      out->assign(value.get_bool().value_unsafe() ? "true" : "false");
      return true;
    default:
      return false;
  }
  out->assign(buf, r.ptr);
  return true;
}

}  // namespace

namespace {

// Where each mapped field's path sits in EventParser::Rep::paths; the
// extras follow from kFirstExtra on, in FieldMapping::extras order.
enum PathIndex : std::size_t { kVin, kTrip, kTimestamp, kEvent, kPayload, kFirstExtra };

std::vector<JsonPath> PathsOf(const FieldMapping& m) {
  std::vector<JsonPath> paths;
  for (const std::string* f : {&m.vin, &m.trip, &m.timestamp, &m.event, &m.payload}) {
    paths.push_back(internal::SplitJsonPath(*f));
  }
  for (const std::string& e : m.extras) paths.push_back(internal::SplitJsonPath(e));
  return paths;
}

}  // namespace

struct EventParser::Rep {
  Rep(FieldMapping m, ValidationLimits l)
      : mapping(std::move(m)),
        limits(l),
        paths(PathsOf(mapping)),
        // simdjson refuses a document once its count of nested non-empty
        // containers reaches its limit; +1 makes our limit inclusive.
        parser(std::clamp<std::size_t>(limits.max_message_bytes, 4096, simdjson::SIMDJSON_MAXSIZE_BYTES)) {
    if (limits.max_depth == 0) {
      throw std::invalid_argument("max_depth must be at least 1");
    }
    const auto initial = std::min<std::size_t>(parser.max_capacity(), kInitialCapacity);
    if (parser.allocate(initial, limits.max_depth + 1) != simdjson::SUCCESS) {
      throw std::bad_alloc();
    }
  }

  bool Fail(Rejection* r, RejectReason reason, std::string_view what, const std::string& field) {
    std::string detail;
    detail.reserve(what.size() + field.size() + 8);
    detail.append("field '").append(field).append("' ").append(what);
    return Reject(r, reason, std::move(detail));
  }

  // Looks up a required field (paths has scanned the root). On failure
  // fills *r and returns false.
  bool Required(std::size_t path, const std::string& name, simdjson::dom::element* out, Rejection* r) {
    switch (paths.Find(path, out)) {
      case Lookup::kFound:
        if (out->is_null()) return Fail(r, RejectReason::kMissingField, "is null", name);
        return true;
      case Lookup::kAbsent:
        return Fail(r, RejectReason::kMissingField, "is missing", name);
      case Lookup::kDuplicate:
        return Fail(r, RejectReason::kBrokenJson, "has a duplicated key", name);
      case Lookup::kNotObject:
        return Fail(r, RejectReason::kWrongType, "has a parent that is not an object", name);
    }
    return false;
  }

  bool String(std::size_t path, const std::string& name, bool allow_empty, std::string* out, Rejection* r) {
    simdjson::dom::element value;
    if (!Required(path, name, &value, r)) return false;
    std::string_view s;
    if (value.get_string().get(s) != simdjson::SUCCESS) {
      return Fail(r, RejectReason::kWrongType, "is not a string", name);
    }
    if (s.empty() && !allow_empty) return Fail(r, RejectReason::kMissingField, "is empty", name);
    Assign(out, s);
    return true;
  }

  bool Timestamp(std::int64_t now_ms, std::int64_t* ts, Rejection* r) {
    const std::string& name = mapping.timestamp;
    simdjson::dom::element value;
    if (!Required(kTimestamp, name, &value, r)) return false;
    switch (value.type()) {
      case simdjson::dom::element_type::INT64:
        *ts = value.get_int64().value_unsafe();
        break;
      case simdjson::dom::element_type::UINT64:
        // Only integers above INT64_MAX are stored as uint64.
        return Fail(r, RejectReason::kTimestampOutOfRange, "is out of range", name);
      case simdjson::dom::element_type::STRING: {
        if (!ParseRfc3339Millis(value.get_string().value_unsafe(), ts)) {
          return Fail(r, RejectReason::kWrongType, "is a string but not an RFC 3339 timestamp", name);
        }
        break;
      }
      default:
        // Includes non-integral numbers: ms timestamps are integers.
        return Fail(r, RejectReason::kWrongType, "is neither integer milliseconds nor an RFC 3339 string", name);
    }
    const std::int64_t max_ts = now_ms > std::numeric_limits<std::int64_t>::max() - limits.max_future_ms
                                    ? std::numeric_limits<std::int64_t>::max()
                                    : now_ms + limits.max_future_ms;
    if (*ts < limits.min_timestamp_ms) {
      return Fail(r, RejectReason::kTimestampOutOfRange, "is before the minimum", name);
    }
    if (*ts > max_ts) {
      return Fail(r, RejectReason::kTimestampOutOfRange, "is further in the future than allowed", name);
    }
    return true;
  }

  bool Payload(std::string* out, Rejection* r) {
    has_payload_object = false;
    const std::string& name = mapping.payload;
    simdjson::dom::element value;
    const Lookup found = paths.Find(kPayload, &value);
    if (!mapping.payload_required && (found == Lookup::kAbsent || (found == Lookup::kFound && value.is_null()))) {
      out->assign("{}");
      return true;
    }
    if (!Required(kPayload, name, &value, r)) return false;
    simdjson::dom::object object;
    if (value.get_object().get(object) != simdjson::SUCCESS) {
      return Fail(r, RejectReason::kWrongType, "is not an object", name);
    }
    if (!internal::HasUniqueKeys(object, &key_scratch)) {
      return Fail(r, RejectReason::kBrokenJson, "has a duplicated key", name);
    }
    if (sink != nullptr) {  // written once the whole event is accepted
      payload_object = object;
      has_payload_object = true;
      return true;
    }
    builder.clear();
    builder.append(object);
    out->assign(builder.str());
    return true;
  }

  bool Extras(std::vector<std::optional<std::string>>* out, Rejection* r) {
    out->resize(mapping.extras.size());
    for (std::size_t i = 0; i < mapping.extras.size(); ++i) {
      const std::string& name = mapping.extras[i];
      std::optional<std::string>& slot = (*out)[i];
      simdjson::dom::element value;
      switch (paths.Find(kFirstExtra + i, &value)) {
        case Lookup::kFound:
          break;
        case Lookup::kAbsent:
          slot.reset();
          continue;
        case Lookup::kDuplicate:
          return Fail(r, RejectReason::kBrokenJson, "has a duplicated key", name);
        case Lookup::kNotObject:
          return Fail(r, RejectReason::kWrongType, "has a parent that is not an object", name);
      }
      if (value.is_null()) {
        slot.reset();
        continue;
      }
      if (!slot) slot.emplace();
      if (!ScalarText(value, &*slot)) {
        return Fail(r, RejectReason::kWrongType, "is an object or array", name);
      }
    }
    return true;
  }

  FieldMapping mapping;
  ValidationLimits limits;
  internal::PathSet paths;  // in PathIndex order

  simdjson::dom::parser parser;
  // simdjson reads up to SIMDJSON_PADDING bytes past the end of its input;
  // copying into this buffer avoids a fresh padded allocation per message.
  std::unique_ptr<char[]> input;
  std::size_t input_capacity = 0;
  std::vector<std::string_view> key_scratch;
  simdjson::internal::string_builder<> builder;
  PayloadSink* sink = nullptr;
  // The accepted payload, for the sink (valid until the next parse).
  simdjson::dom::object payload_object;
  bool has_payload_object = false;
};

EventParser::EventParser(FieldMapping mapping, ValidationLimits limits)
    : rep_(std::make_unique<Rep>(std::move(mapping), limits)) {}

EventParser::~EventParser() = default;

const FieldMapping& EventParser::mapping() const { return rep_->mapping; }
const ValidationLimits& EventParser::limits() const { return rep_->limits; }

// simdjson's error, as the reason a consumer of the DLQ can act on.
// simdjson's messages describe the error class, never the input.
static bool RejectParseError(simdjson::error_code error, const ValidationLimits& limits, Rejection* rejection) {
  switch (error) {
    case simdjson::DEPTH_ERROR:
      return Reject(rejection, RejectReason::kTooDeep, "nesting is deeper than " + std::to_string(limits.max_depth));
    case simdjson::UTF8_ERROR:
      return Reject(rejection, RejectReason::kInvalidUtf8, "message is not valid UTF-8");
    case simdjson::CAPACITY:
    case simdjson::MEMALLOC:
      return Reject(rejection, RejectReason::kTooLarge, "message exceeds the parser capacity");
    case simdjson::NUMBER_ERROR:
      return Reject(rejection, RejectReason::kBrokenJson,
                    "a number is malformed or outside the int64, uint64 and "
                    "double ranges");
    default:
      return Reject(rejection, RejectReason::kBrokenJson,
                    std::string("not valid JSON: ") + simdjson::error_message(error));
  }
}

bool EventParser::Parse(std::string_view key, std::string_view value, std::int64_t now_ms, ParsedEvent* event,
                        Rejection* rejection) {
  Rep& rep = *rep_;
  if (value.size() > rep.limits.max_message_bytes) {
    return Reject(rejection, RejectReason::kTooLarge,
                  "message is " + std::to_string(value.size()) + " bytes, limit is " +
                      std::to_string(rep.limits.max_message_bytes));
  }
  const std::size_t needed = value.size() + simdjson::SIMDJSON_PADDING;
  if (needed > rep.input_capacity) {
    rep.input_capacity = std::max(needed, 2 * rep.input_capacity);
    rep.input = std::make_unique<char[]>(rep.input_capacity);
  }
  if (!value.empty()) std::memcpy(rep.input.get(), value.data(), value.size());
  std::memset(rep.input.get() + value.size(), 0, simdjson::SIMDJSON_PADDING);

  simdjson::dom::element root;
  // simdjson validates UTF-8 while it parses, so a document it accepts is
  // valid UTF-8; only a refused one is checked apart, because invalid UTF-8
  // is the reason given before any other (step 2) and simdjson may name
  // another fault of the same document first.
  const simdjson::error_code error = rep.parser.parse(rep.input.get(), value.size(), false).get(root);
  if (error != simdjson::SUCCESS) {
    if (!simdjson::validate_utf8(value.data(), value.size())) {
      return Reject(rejection, RejectReason::kInvalidUtf8, "message is not valid UTF-8");
    }
    return RejectParseError(error, rep.limits, rejection);
  }
  if (!root.is_object()) {
    return Reject(rejection, RejectReason::kWrongType, "message is not a JSON object");
  }
  rep.paths.Scan(root);

  if (!rep.String(kVin, rep.mapping.vin, true, &event->vin, rejection)) {
    return false;
  }
  if (!base::IsValidVin(event->vin)) {
    return rep.Fail(rejection, RejectReason::kInvalidVin, "is not 17 characters of 0-9, A-Z without I, O, Q",
                    rep.mapping.vin);
  }
  if (!key.empty() && key != event->vin) {
    return Reject(rejection, RejectReason::kInvalidVin, "key does not match body VIN");
  }
  if (!(rep.String(kTrip, rep.mapping.trip, false, &event->trip_id, rejection) &&
        rep.Timestamp(now_ms, &event->ts_ms, rejection) &&
        rep.String(kEvent, rep.mapping.event, false, &event->event, rejection) &&
        rep.Payload(&event->payload_json, rejection) && rep.Extras(&event->extras, rejection))) {
    return false;
  }
  // The key (the VIN) is what keeps a vehicle in one input partition: its
  // signature, waiting tuple and DP contributions live in that partition's
  // state. A producer that sends no key spreads a vehicle over partitions.
  // Checked last, so a keyless message with another fault shows that fault.
  if (key.empty()) {
    return Reject(rejection, RejectReason::kMissingKey, "message has no key (the VIN must be the Kafka key)");
  }
  if (rep.has_payload_object) {
    event->payload_json.clear();
    rep.sink->Write(rep.payload_object, &event->payload_json);
  }
  return true;
}

void EventParser::SetPayloadSink(PayloadSink* sink) { rep_->sink = sink; }

}  // namespace vanon::ingest
