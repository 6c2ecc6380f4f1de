// The HMAC key comes from the environment only (never from the config file,
// which is often in a ConfigMap). Missing or weak is a start-up error.
#ifndef VANON_SRC_CLI_HMAC_KEY_H_
#define VANON_SRC_CLI_HMAC_KEY_H_

#include <optional>
#include <string>

#include "vanon/config.h"

namespace vanon::cli {

// Returns the key, or nullopt with *error set to a "FILE: key: message" line.
std::optional<std::string> ReadHmacKey(const config::Config& config, std::string* error);

// A fresh random key (hex) for the demo, which has no secret to protect.
std::string RandomHmacKey();

}  // namespace vanon::cli

#endif  // VANON_SRC_CLI_HMAC_KEY_H_
