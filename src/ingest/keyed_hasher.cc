#include "vanon/ingest/keyed_hasher.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <stdexcept>

#include "base/hex.h"

namespace vanon::ingest {

std::string HmacTokenHex(const HmacToken& token) {
  return base::HexEncode(std::string_view(reinterpret_cast<const char*>(token.data()), token.size()));
}

KeyedHasher::KeyedHasher(std::string_view key) : mac_(nullptr), mac_ctx_(nullptr) {
  if (key.empty()) {
    throw std::invalid_argument("KeyedHasher: the HMAC key must not be empty");
  }
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  EVP_MAC_CTX* ctx = mac ? EVP_MAC_CTX_new(mac) : nullptr;
  char digest[] = "SHA256";
  const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                               OSSL_PARAM_construct_end()};
  // Keying once derives the inner and outer pads; Hash() then restarts from
  // them with a NULL key instead of re-deriving them per call.
  if (ctx == nullptr ||
      EVP_MAC_init(ctx, reinterpret_cast<const unsigned char*>(key.data()), key.size(), params) != 1) {
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
    throw std::runtime_error("KeyedHasher: OpenSSL HMAC-SHA256 unavailable");
  }
  mac_ = mac;
  mac_ctx_ = ctx;
}

KeyedHasher::~KeyedHasher() {
  // The key lives only inside the MAC context (as HMAC pads);
  // EVP_MAC_CTX_free cleanses it with OPENSSL_cleanse before freeing.
  EVP_MAC_CTX_free(static_cast<EVP_MAC_CTX*>(mac_ctx_));
  EVP_MAC_free(static_cast<EVP_MAC*>(mac_));
}

HmacToken KeyedHasher::Hash(std::string_view data) {
  auto* ctx = static_cast<EVP_MAC_CTX*>(mac_ctx_);
  HmacToken token;
  std::size_t written = 0;
  if (EVP_MAC_init(ctx, nullptr, 0, nullptr) != 1 ||
      EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(data.data()), data.size()) != 1 ||
      EVP_MAC_final(ctx, token.data(), &written, token.size()) != 1 || written != token.size()) {
    throw std::runtime_error("KeyedHasher: HMAC computation failed");
  }
  return token;
}

HmacToken KeyedHasher::HashTrip(std::string_view trip_id) {
  scratch_.assign(kTripDomain);
  scratch_.append(trip_id);
  return Hash(scratch_);
}

}  // namespace vanon::ingest
