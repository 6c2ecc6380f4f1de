// Writers for the default input format (privacy-model.md section 1):
//   {"vin":..,"trip_id":..,"ts":..,"event":..,"payload":{..}}
// and for the malformed variants the DLQ tests need.
#ifndef VANON_SRC_FLEET_EVENT_FORMAT_H_
#define VANON_SRC_FLEET_EVENT_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/random.h"

namespace vanon::fleet::internal {

// Everything up to and including "payload": ; the caller appends the
// payload object and the closing brace.
void AppendEventHead(std::string& out, std::string_view vin, uint64_t trip_id, int64_t ts_ms, std::string_view event);

struct MalformedInput {
  std::string_view vin;
  std::string_view other_vin;  // a different valid VIN, for a key mismatch
  uint64_t trip_id = 0;
  int64_t ts_ms = 0;
  size_t max_message_bytes = 1u << 20;  // the limit a too_large body must exceed
};

// Fills key and value with a message the ingest layer must reject with
// kFleetRejectReasons[reason]; `variant` rotates between equivalent forms
// (e.g. which field is missing). The body is otherwise well-formed, so the
// intended check is the first one to fail (size, UTF-8, JSON, depth,
// fields - the ingest order).
void WriteMalformed(size_t reason, uint64_t variant, const MalformedInput& in, base::Random& rng, std::string* key,
                    std::string* value);

// Payload nesting of a too_deep message: over the default limit of 16.
inline constexpr int kTooDeepLevels = 24;

}  // namespace vanon::fleet::internal

#endif  // VANON_SRC_FLEET_EVENT_FORMAT_H_
