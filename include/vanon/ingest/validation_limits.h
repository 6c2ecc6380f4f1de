// Bounds a message must respect to be accepted. The current time is not part
// of the limits: EventParser::Parse takes it per call, so tests and replays
// are deterministic.

#ifndef VANON_INGEST_VALIDATION_LIMITS_H_
#define VANON_INGEST_VALIDATION_LIMITS_H_

#include <cstddef>
#include <cstdint>

namespace vanon::ingest {

struct ValidationLimits {
  // Larger messages are too_large before any other check.
  std::size_t max_message_bytes = 1 << 20;

  // Maximum nesting of objects and arrays; the top-level object is level 1,
  // so the default format ({"payload": {...}}) needs 2. An empty {} or []
  // does not count as a level, since it cannot nest anything further (this is
  // how simdjson counts, and it makes the check free).
  std::size_t max_depth = 16;

  // Accepted event times are [min_timestamp_ms, now_ms + max_future_ms].
  std::int64_t min_timestamp_ms = 946684800000;  // 2000-01-01T00:00:00Z
  std::int64_t max_future_ms = 86400000;         // one day of clock skew
};

}  // namespace vanon::ingest

#endif  // VANON_INGEST_VALIDATION_LIMITS_H_
