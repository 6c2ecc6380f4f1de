// EventParser with the demo's field mapping, limits and payload transforms,
// wired as the ingest pipeline wires them (service/ingest/ingest_pipeline.cc): the
// sensitive field as the one extra, the PayloadTransformer as payload sink.
// Input: one Kafka message value; the key is the body's VIN (so accepted
// events reach the sink), and the same value is parsed again without a key.
//
// Invariants: parsing is deterministic; without a key the outcome is
// missing_key exactly when the keyed parse accepts, and the same rejection
// otherwise; an accepted event is valid as documented (VIN syntax, key =
// VIN, non-empty trip and event, time in range, a JSON object payload that
// holds only fields the payload config publishes); no rejection detail
// repeats a VIN of the message.
#include <simdjson.h>

#include <optional>
#include <set>
#include <string>

#include "base/vin.h"
#include "fuzz_support.h"
#include "fuzz_targets.h"
#include "vanon/config.h"
#include "vanon/ingest/event_parser.h"
#include "vanon/release/payload_transformer.h"

namespace vanon::fuzz {

namespace {

// The fleet generator starts at 2025-11-22T10:00:00Z; a day later, its
// events are all in range.
constexpr int64_t kNowMs = 1763805600000 + 86400000;

struct Harness {
  config::Config config = config::LoadConfig(SourcePath("config/demo.yaml"));
  ingest::EventParser parser{Mapping(config), Limits(config)};
  release::PayloadTransformer payload{config.payload};
  std::set<std::string, std::less<>> published;  // payload keys that may appear
  simdjson::dom::parser json;

  Harness() {
    parser.SetPayloadSink(&payload);
    for (const config::PayloadField& f : config.payload.fields) {
      if (f.transform != config::PayloadTransform::kDrop) published.insert(f.path.substr(0, f.path.find('.')));
    }
  }

  static ingest::FieldMapping Mapping(const config::Config& c) {
    ingest::FieldMapping m;
    m.vin = c.input.fields.vin;
    m.trip = c.input.fields.trip;
    m.timestamp = c.input.fields.timestamp;
    m.event = c.input.fields.event;
    m.payload = c.input.fields.payload;
    if (c.sensitive && !c.sensitive->field.empty()) m.extras.push_back(c.sensitive->field);
    return m;
  }

  static ingest::ValidationLimits Limits(const config::Config& c) {
    ingest::ValidationLimits l;
    l.max_message_bytes = static_cast<size_t>(c.input.max_message_bytes);
    l.max_depth = static_cast<size_t>(c.input.max_depth);
    l.min_timestamp_ms = c.input.timestamp.min_ms;
    l.max_future_ms = c.input.timestamp.max_future_seconds * 1000;
    return l;
  }
};

struct Outcome {
  bool accepted = false;
  ingest::ParsedEvent event;
  ingest::Rejection rejection;

  bool Same(const Outcome& o) const {
    if (accepted != o.accepted) return false;
    if (!accepted) return rejection.reason == o.rejection.reason && rejection.detail == o.rejection.detail;
    return event.vin == o.event.vin && event.trip_id == o.event.trip_id && event.ts_ms == o.event.ts_ms &&
           event.event == o.event.event && event.payload_json == o.event.payload_json && event.extras == o.event.extras;
  }
};

Outcome Parse(Harness& h, std::string_view key, std::string_view value) {
  Outcome o;
  o.accepted = h.parser.Parse(key, value, kNowMs, &o.event, &o.rejection);
  return o;
}

// The body's VIN string as the mapping finds it, or "" (the harness's own
// reading, independent of EventParser).
std::string BodyVin(Harness& h, std::string_view value) {
  simdjson::dom::element e;
  if (h.json.parse(simdjson::padded_string(value)).get(e)) return "";
  std::string_view path = h.config.input.fields.vin;
  while (!path.empty()) {
    const size_t dot = path.find('.');
    if (e.at_key(path.substr(0, dot)).get(e)) return "";
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
  }
  std::string_view vin;
  return e.get_string().get(vin) ? "" : std::string(vin);
}

void CheckPayload(Harness& h, const std::string& payload_json) {
  simdjson::dom::element root;
  simdjson::dom::object object;
  Check(!h.json.parse(simdjson::padded_string(payload_json)).get(root) && !root.get_object().get(object),
        "accepted payload_json is not a JSON object");
  for (auto field : object) {
    Check(h.published.count(field.key) > 0, "published payload holds a field the payload config does not publish");
  }
}

void CheckAccepted(Harness& h, const Outcome& o, std::string_view key) {
  const ingest::ParsedEvent& e = o.event;
  Check(base::IsValidVin(e.vin), "accepted VIN is not ISO 3779");
  Check(e.vin == key, "accepted event's VIN differs from its key");
  Check(!e.trip_id.empty() && !e.event.empty(), "accepted event has an empty trip or event");
  const ingest::ValidationLimits& l = h.parser.limits();
  Check(e.ts_ms >= l.min_timestamp_ms && e.ts_ms <= kNowMs + l.max_future_ms, "accepted time out of range");
  Check(e.extras.size() == h.parser.mapping().extras.size(), "one extra per mapped path");
  CheckPayload(h, e.payload_json);
}

}  // namespace

void FuzzEventParser(std::string_view value) {
  static Harness* h = new Harness();
  const std::string key = BodyVin(*h, value);
  const Outcome keyed = Parse(*h, key, value);
  const Outcome again = Parse(*h, key, value);
  Check(keyed.Same(again), "parsing the same message twice gave different results");
  const Outcome keyless = Parse(*h, "", value);
  if (keyed.accepted) {
    CheckAccepted(*h, keyed, key);
    Check(!keyless.accepted && keyless.rejection.reason == ingest::RejectReason::kMissingKey,
          "an event accepted with its key must be missing_key without one");
  } else {
    Check(keyed.rejection.reason != ingest::RejectReason::kMissingKey, "missing_key although the key was given");
    Check(keyless.Same(keyed), "a rejection must not depend on the key when the key is the body's VIN");
    Check(!EchoesVin(keyed.rejection.detail, value), "rejection detail repeats a VIN of the message");
  }
}

}  // namespace vanon::fuzz
