// KeyedHasher pseudonymizes identifiers (VINs, trip ids) with HMAC-SHA256
// under a secret key, so that state on disk holds no raw identifier while
// the same vehicle still maps to the same key. Without the secret the
// tokens cannot be recomputed from a list of candidate VINs, which a plain
// hash would allow (the VIN space is small and structured).

#ifndef VANON_INGEST_KEYED_HASHER_H_
#define VANON_INGEST_KEYED_HASHER_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace vanon {

inline constexpr std::size_t kHmacTokenBytes = 32;
using HmacToken = std::array<std::uint8_t, kHmacTokenBytes>;

// Lower-case hex of a token (64 characters).
std::string HmacTokenHex(const HmacToken& token);

class KeyedHasher {
 public:
  // Throws std::invalid_argument if `key` is empty. The key is copied; the
  // copy is wiped with OPENSSL_cleanse on destruction.
  explicit KeyedHasher(std::string_view key);
  ~KeyedHasher();

  KeyedHasher(const KeyedHasher&) = delete;
  KeyedHasher& operator=(const KeyedHasher&) = delete;

  // HMAC-SHA256(key, data). Reuses one OpenSSL MAC context, hence non-const:
  // thread-compatible, use one instance per thread. Throws
  // std::runtime_error only if OpenSSL itself fails.
  HmacToken Hash(std::string_view data);
  std::string HashHex(std::string_view data) { return HmacTokenHex(Hash(data)); }

 private:
  std::string key_;
  void* mac_;      // EVP_MAC*, kept opaque to keep OpenSSL out of this header
  void* mac_ctx_;  // EVP_MAC_CTX*
};

}  // namespace vanon

#endif  // VANON_INGEST_KEYED_HASHER_H_
