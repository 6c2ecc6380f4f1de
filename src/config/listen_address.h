// "host:port" as accepted by http.listen.

#ifndef VANON_SRC_CONFIG_LISTEN_ADDRESS_H_
#define VANON_SRC_CONFIG_LISTEN_ADDRESS_H_

#include <string>

namespace vanon::config::internal {

// Accepts "host:port" where host is a DNS name or IPv4 address, or
// "[v6-address]:port", and port is 1..65535. On failure returns false and
// sets *why.
bool ParseListenAddress(const std::string& text, std::string* host, int* port, std::string* why);

}  // namespace vanon::config::internal

#endif  // VANON_SRC_CONFIG_LISTEN_ADDRESS_H_
