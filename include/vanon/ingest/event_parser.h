// EventParser turns one Kafka message (key, value) into a validated
// ParsedEvent or a Rejection. It owns a simdjson parser and a padded input
// buffer that are reused across calls, so steady-state parsing does not
// allocate beyond the output strings.
//
// Checks run in this order, and the first failure decides the reason:
//   1. size > max_message_bytes                      -> too_large
//   2. the whole message is not valid UTF-8          -> invalid_utf8
//   3. not JSON (incl. empty message, numbers outside
//      double/int64/uint64 range, duplicate keys on a
//      mapped path or in the payload object)        -> broken_json
//      nesting deeper than max_depth                  -> too_deep
//      (found by the same pass: whichever comes first in the text)
//   4. fields, in mapping order vin, trip, timestamp, event, payload,
//      extras: absent -> missing_field (null counts as absent for the
//      required fields too), present with the wrong JSON type -> wrong_type,
//      then invalid_vin / timestamp_out_of_range.
//   5. a non-empty key that differs from the body VIN -> invalid_vin.
//
// Thread-compatible: use one EventParser per thread.

#ifndef VANON_INGEST_EVENT_PARSER_H_
#define VANON_INGEST_EVENT_PARSER_H_

#include <cstdint>
#include <memory>
#include <string_view>

#include "vanon/ingest/field_mapping.h"
#include "vanon/ingest/parsed_event.h"
#include "vanon/ingest/validation_limits.h"

namespace vanon {

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
  bool Parse(std::string_view key, std::string_view value,
             std::int64_t now_ms, ParsedEvent* event, Rejection* rejection);

  const FieldMapping& mapping() const;
  const ValidationLimits& limits() const;

 private:
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace vanon

#endif  // VANON_INGEST_EVENT_PARSER_H_
