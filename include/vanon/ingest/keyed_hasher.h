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

namespace vanon::ingest {

inline constexpr std::size_t kHmacTokenBytes = 32;
using HmacToken = std::array<std::uint8_t, kHmacTokenBytes>;

// Lower-case hex of a token (64 characters).
std::string HmacTokenHex(const HmacToken& token);

class KeyedHasher {
 public:
  // Throws std::invalid_argument if `key` is empty. No copy of the key is
  // kept outside OpenSSL's MAC context, which holds it as the HMAC inner and
  // outer pads and wipes them (OPENSSL_cleanse) when freed in the
  // destructor. The caller should wipe its own copy once hashers are built.
  explicit KeyedHasher(std::string_view key);
  ~KeyedHasher();

  KeyedHasher(const KeyedHasher&) = delete;
  KeyedHasher& operator=(const KeyedHasher&) = delete;

  // HMAC-SHA256(key, data). Restarts one pre-keyed OpenSSL MAC context per
  // call, hence non-const: thread-compatible, use one instance per thread.
  // Throws std::runtime_error only if OpenSSL itself fails.
  HmacToken Hash(std::string_view data);
  std::string HashHex(std::string_view data) { return HmacTokenHex(Hash(data)); }

  // A trip id's token: HMAC-SHA256(key, kTripDomain + trip_id). The prefix
  // (which no VIN can start with: VINs are 17 characters of 0-9 and A-Z)
  // separates trip tokens from vehicle tokens, so a trip id equal to some
  // VIN never yields that vehicle's token. VINs keep the unprefixed form:
  // every stored signature and waiting tuple is keyed by it, and state holds
  // no raw VIN to hash again.
  HmacToken HashTrip(std::string_view trip_id);
  static constexpr std::string_view kTripDomain = "vanon.trip\x1f";

 private:
  void* mac_;            // EVP_MAC*, kept opaque to keep OpenSSL out of this header
  void* mac_ctx_;        // EVP_MAC_CTX*
  std::string scratch_;  // HashTrip's input, reused
};

}  // namespace vanon::ingest

#endif  // VANON_INGEST_KEYED_HASHER_H_
