// The state keys come from the environment only, like the HMAC key: never
// from the config file (often a ConfigMap), never defaulted, never logged.
#ifndef VANON_SRC_CLI_STATE_KEYS_H_
#define VANON_SRC_CLI_STATE_KEYS_H_

#include <optional>
#include <string>

#include "vanon/config.h"
#include "vanon/seal/keyring.h"

namespace vanon::cli {

// The key ring from security.state_keys_env. Returns nullopt without an
// error when the config writes no internal topic and the variable is unset;
// nullopt with *error set to a "FILE: key: message" line when it is needed
// and missing, or malformed.
std::optional<seal::Keyring> ReadStateKeys(const config::Config& config, std::string* error);

}  // namespace vanon::cli

#endif  // VANON_SRC_CLI_STATE_KEYS_H_
