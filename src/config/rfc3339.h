// RFC 3339 timestamps ("2000-01-01T00:00:00Z", "2024-02-29T12:30:00.25+01:00").

#ifndef VANON_SRC_CONFIG_RFC3339_H_
#define VANON_SRC_CONFIG_RFC3339_H_

#include <cstdint>
#include <string_view>

namespace vanon::config_internal {

// Returns false unless `text` is a complete RFC 3339 date-time with a valid
// calendar date and an explicit offset; fractions below 1 ms are truncated.
bool ParseRfc3339Millis(std::string_view text, int64_t* millis);

}  // namespace vanon::config_internal

#endif  // VANON_SRC_CONFIG_RFC3339_H_
