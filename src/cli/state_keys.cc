#include "state_keys.h"

#include <cstdlib>

namespace vanon::cli {

std::optional<seal::Keyring> ReadStateKeys(const config::Config& config, std::string* error) {
  const std::string& var = config.security.state_keys_env;
  const std::string where = config.path + ": security.state_keys_env: ";
  const char* v = std::getenv(var.c_str());
  if (v == nullptr || *v == '\0') {
    if (config::WritesInternalTopics(config)) {
      *error = where + "environment variable " + var +
               " is not set; with the state changelog or DP aggregation on it must hold the key ring that seals "
               "internal topics (ID:HEX[,ID:HEX...], 64 hex digits a key; docs/config.md)";
    }
    return std::nullopt;
  }
  std::string why;
  std::optional<seal::Keyring> ring = seal::Keyring::Parse(v, &why);
  if (!ring) *error = where + "the key ring in " + var + " is invalid: " + why;
  return ring;
}

}  // namespace vanon::cli
