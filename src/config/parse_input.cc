#include "parse.h"
#include "vanon/ingest/rfc3339.h"

namespace vanon::config::internal {

void ParseInput(Section& root, InputConfig* out) {
  Section s(root.diag(), root.Child("input"), "input");
  s.Int("max_message_bytes", &out->max_message_bytes, 256, 67108864);
  s.Int("max_depth", &out->max_depth, 2, 256);
  {
    Section t(root.diag(), s.Child("timestamp"), s.PathOf("timestamp"));
    std::string min;
    if (t.String("min", &min)) {
      int64_t ms = 0;
      if (ingest::ParseRfc3339Millis(min, &ms) && ms < 0) {
        // State keys order event times as unsigned numbers.
        t.Error("min", "\"" + min + "\" is before 1970-01-01T00:00:00Z; event times must not be negative");
      } else if (ingest::ParseRfc3339Millis(min, &ms)) {
        out->timestamp.min = min;
        out->timestamp.min_ms = ms;
      } else {
        t.Error("min", "\"" + min +
                           "\" is not an RFC 3339 date-time "
                           "(e.g. 2000-01-01T00:00:00Z)");
      }
    }
    t.Int("max_future_seconds", &out->timestamp.max_future_seconds, 0, 31536000);
  }
  {
    Section f(root.diag(), s.Child("fields"), s.PathOf("fields"));
    f.DottedPath("vin", &out->fields.vin);
    f.DottedPath("trip", &out->fields.trip);
    f.DottedPath("timestamp", &out->fields.timestamp);
    f.DottedPath("event", &out->fields.event);
    f.DottedPath("payload", &out->fields.payload);
  }
}

}  // namespace vanon::config::internal
