#include "vanon/release/seed_stream.h"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <stdexcept>

namespace vanon::release {

ReleaseSeed NewReleaseSeed() {
  ReleaseSeed seed;
  if (RAND_bytes(seed.data(), static_cast<int>(seed.size())) != 1) {
    throw std::runtime_error("RAND_bytes failed: cannot draw a release seed");
  }
  return seed;
}

namespace {

// SHA-256 with the algorithm fetched once per thread and its context
// reused: OpenSSL 3's one-shot SHA256() fetches the algorithm and builds a
// context on every call, which cost three times the hash itself.
class Sha256 {
 public:
  Sha256() : md_(EVP_MD_fetch(nullptr, "SHA256", nullptr)), ctx_(EVP_MD_CTX_new()) {
    if (md_ == nullptr || ctx_ == nullptr) throw std::runtime_error("OpenSSL: SHA-256 unavailable");
  }
  ~Sha256() {
    EVP_MD_CTX_free(ctx_);
    EVP_MD_free(md_);
  }
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void Digest(const uint8_t* data, size_t size, uint8_t out[SHA256_DIGEST_LENGTH]) {
    unsigned int n = 0;
    if (EVP_DigestInit_ex2(ctx_, md_, nullptr) != 1 || EVP_DigestUpdate(ctx_, data, size) != 1 ||
        EVP_DigestFinal_ex(ctx_, out, &n) != 1 || n != SHA256_DIGEST_LENGTH) {
      throw std::runtime_error("OpenSSL: SHA-256 failed");
    }
  }

 private:
  EVP_MD* md_;
  EVP_MD_CTX* ctx_;
};

}  // namespace

uint64_t SeedStream::NextU64() {
  if (next_ == block_.size()) {
    uint8_t input[sizeof(ReleaseSeed) + 8];
    std::copy(seed_.begin(), seed_.end(), input);
    for (int i = 0; i < 8; ++i) input[seed_.size() + i] = static_cast<uint8_t>(counter_ >> (8 * i));
    ++counter_;
    uint8_t digest[SHA256_DIGEST_LENGTH];
    thread_local Sha256 sha;
    sha.Digest(input, sizeof(input), digest);
    for (size_t w = 0; w < block_.size(); ++w) {
      uint64_t v = 0;
      for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(digest[w * 8 + i]) << (8 * i);
      block_[w] = v;
    }
    next_ = 0;
  }
  return block_[next_++];
}

}  // namespace vanon::release
