// EventParser turns one Kafka message (key, value) into a validated
// ParsedEvent or a Rejection. It owns a simdjson parser and a padded input
// buffer that are reused across calls, so steady-state parsing does not
// allocate beyond the output strings.
//
// Checks run in this order, and the first failure decides the reason:
//   1. size > max_message_bytes                       -> too_large
//   2. the whole message is not valid UTF-8           -> invalid_utf8
//   3. not one JSON document (empty, truncated, trailing bytes, unescaped
//      control characters incl. raw NUL, NaN/Infinity literals, escaped
//      lone surrogates, numbers outside int64/uint64/double)
//                                                      -> broken_json
//      nesting deeper than max_depth                   -> too_deep
//      Syntax and depth are found by one simdjson pass: the first problem
//      in document order wins, except that a document whose brackets do not
//      balance (e.g. any truncation) is always broken_json.
//   4. top level is not an object                      -> wrong_type
//   5. fields, in order vin, trip, timestamp, event, payload, extras:
//      absent or null                                  -> missing_field
//      (empty trip/event string also missing_field; an optional payload
//      may be absent, see FieldMapping)
//      present with the wrong JSON type                -> wrong_type
//      (a parent on the path that is not an object is wrong_type too)
//      mapped key duplicated in its object, or any
//      duplicated key inside the payload object        -> broken_json
//      vin not ISO 3779, or a non-empty key that differs
//      from the body VIN                               -> invalid_vin
//      ts outside [min, now + max_future]              -> timestamp_out_of_range
//      (integers beyond int64 are out of range; non-integral numbers and
//      strings that are not RFC 3339 are wrong_type)
//
// Thread-compatible: use one EventParser per thread.

#ifndef VANON_INGEST_EVENT_PARSER_H_
#define VANON_INGEST_EVENT_PARSER_H_

#include <cstdint>
#include <memory>
#include <string_view>

#include "vanon/ingest/field_mapping.h"
#include "vanon/ingest/parsed_event.h"
#include "vanon/ingest/payload_sink.h"
#include "vanon/ingest/validation_limits.h"

namespace vanon::ingest {

class EventParser {
 public:
  // Throws std::invalid_argument when a path is empty or has an empty
  // segment ("a..b"), or when max_depth is 0.
  EventParser(FieldMapping mapping, ValidationLimits limits);
  ~EventParser();

  EventParser(const EventParser&) = delete;
  EventParser& operator=(const EventParser&) = delete;

  // Returns true and fills *event (reusing its string capacity), or returns
  // false and fills *rejection. `now_ms` is the caller's clock, in ms since
  // the Unix epoch. On rejection *event is left in an unspecified state.
  bool Parse(std::string_view key, std::string_view value, std::int64_t now_ms, ParsedEvent* event,
             Rejection* rejection);

  // With a sink, an accepted event's payload_json is what the sink writes
  // from the parsed payload object (an absent optional payload stays "{}"),
  // instead of the minified payload. The sink must outlive the parser.
  void SetPayloadSink(PayloadSink* sink);

  const FieldMapping& mapping() const;
  const ValidationLimits& limits() const;

 private:
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace vanon::ingest

#endif  // VANON_INGEST_EVENT_PARSER_H_
