// Structured logs: one JSON object per line on stderr, for log shippers.
// Messages are escaped by the formatter, so callers write plain text; they
// must never put a VIN or any raw identifier into one (HMAC tokens neither).
#ifndef VANON_SERVICE_JSON_LOG_H_
#define VANON_SERVICE_JSON_LOG_H_

#include <string>

namespace vanon::service {

// Installs the JSON logger as spdlog's default. level: trace|debug|info|warn|error.
void InitJsonLogging(const std::string& level);

}  // namespace vanon::service

#endif  // VANON_SERVICE_JSON_LOG_H_
