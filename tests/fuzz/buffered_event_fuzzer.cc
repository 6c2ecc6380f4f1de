// DecodeBufferedEvent: the `events` value of the state (an accepted event
// waiting for its release). Input: one value.
//
// Invariants: what decodes is the canonical encoding of what it decoded to
// (the same bytes again, version 1 records apart from their version byte);
// decoding into an event that already holds another one (the service
// reuses them) gives the same event as decoding into a fresh one.
#include "fuzz_support.h"
#include "fuzz_targets.h"
#include "vanon/ingest/buffered_event.h"

namespace vanon::fuzz {

namespace {

// An event with more of everything than most inputs, to decode over.
ingest::BufferedEvent Used() {
  ingest::BufferedEvent e;
  e.vehicle_key.fill(0xaa);
  e.trip_key.fill(0xbb);
  e.ts_ms = -1;
  e.event = "an event name longer than the small-string buffer";
  e.qi_values = ingest::QiValues(std::vector<std::string>(5, "a QI value longer than the small-string buffer"));
  e.extras = {std::nullopt, "an extra longer than the small-string buffer", std::string(), std::nullopt};
  e.payload_json = R"({"speed_kmh":120})";
  return e;
}

}  // namespace

bool CheckBufferedEvent(std::string_view value) {
  ingest::BufferedEvent fresh;
  uint8_t version = 0;
  if (!ingest::DecodeBufferedEvent(value, &fresh, &version)) {
    ingest::BufferedEvent reused = Used();
    Check(!ingest::DecodeBufferedEvent(value, &reused), "a record decodes into a used event only");
    return false;
  }
  Check(version == ingest::kBufferedEventVersion || version == ingest::kBufferedEventRawPayloadVersion,
        "a decoded event reports an unknown version");
  std::string encoded;
  ingest::EncodeBufferedEvent(fresh, &encoded);
  Check(encoded.size() == value.size() && encoded.substr(1) == value.substr(1),
        "a buffered event is not its canonical encoding");
  ingest::BufferedEvent reused = Used();
  Check(ingest::DecodeBufferedEvent(value, &reused) && reused == fresh,
        "decoding into a used event differs from decoding into a fresh one");
  return true;
}

void FuzzBufferedEvent(std::string_view input) { CheckBufferedEvent(input); }

}  // namespace vanon::fuzz
