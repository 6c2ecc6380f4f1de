// RFC 3339 timestamps, as accepted in the `ts` field.

#ifndef VANON_INGEST_RFC3339_H_
#define VANON_INGEST_RFC3339_H_

#include <cstdint>
#include <string_view>

namespace vanon::ingest {

// Parses "2025-11-22T10:00:00.123Z" or "...+01:00" into milliseconds since
// the Unix epoch (UTC). Follows the RFC 3339 section 5.6 grammar: 'T'/'t'
// separator, 'Z'/'z' or a +hh:mm/-hh:mm offset, any number of fraction
// digits (truncated to milliseconds, toward the past). Calendar dates are
// checked (no Feb 30); second 60 is accepted for leap seconds and counts as
// the first second of the next minute, since Unix time has no leap seconds.
// Returns false on anything else, leaving *ms unspecified.
bool ParseRfc3339Millis(std::string_view text, std::int64_t* ms);

}  // namespace vanon::ingest

#endif  // VANON_INGEST_RFC3339_H_
