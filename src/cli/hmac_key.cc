#include "hmac_key.h"

#include <openssl/rand.h>

#include <cstdlib>
#include <stdexcept>

#include "base/hex.h"

namespace vanon::cli {

namespace {
// 128 bits: shorter keys make brute-forcing the VIN space (about 10^8 real
// VINs per manufacturer-year) cheaper than it already is.
constexpr size_t kMinKeyBytes = 16;
}  // namespace

std::optional<std::string> ReadHmacKey(const config::Config& config, std::string* error) {
  const std::string& var = config.security.hmac_key_env;
  const char* v = std::getenv(var.c_str());
  if (v == nullptr || *v == '\0') {
    *error = config.path + ": security.hmac_key_env: environment variable " + var +
             " is not set; it must hold the HMAC key (at least 16 bytes)";
    return std::nullopt;
  }
  std::string key(v);
  if (key.size() < kMinKeyBytes) {
    *error = config.path + ": security.hmac_key_env: the key in " + var + " is shorter than 16 bytes";
    return std::nullopt;
  }
  return key;
}

std::string RandomHmacKey() {
  unsigned char raw[32];
  if (RAND_bytes(raw, sizeof raw) != 1) throw std::runtime_error("RAND_bytes failed");
  return base::HexEncode(std::string_view(reinterpret_cast<const char*>(raw), sizeof raw));
}

}  // namespace vanon::cli
