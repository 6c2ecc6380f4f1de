// The result of EventParser::Parse: an accepted event or a rejection.

#ifndef VANON_INGEST_PARSED_EVENT_H_
#define VANON_INGEST_PARSED_EVENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vanon/ingest/reject_reason.h"

namespace vanon::ingest {

struct ParsedEvent {
  std::string vin;         // valid ISO 3779 VIN, upper case
  std::string trip_id;     // non-empty
  std::int64_t ts_ms = 0;  // milliseconds since the Unix epoch, UTC
  std::string event;       // non-empty
  // The payload object re-serialized minified by simdjson. Keys keep their
  // order; numbers are re-rendered, so "1.50" becomes "1.5".
  std::string payload_json;
  // One entry per FieldMapping::extras path, in the same order.
  std::vector<std::optional<std::string>> extras;
};

struct Rejection {
  RejectReason reason = RejectReason::kBrokenJson;
  // For logs and the DLQ. Names fields and rules, never a field value: the
  // DLQ and logs must not become a side channel for VINs.
  std::string detail;
};

}  // namespace vanon::ingest

#endif  // VANON_INGEST_PARSED_EVENT_H_
