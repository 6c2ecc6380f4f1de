#include "vanon/seal/record_sealer.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <map>
#include <memory>
#include <stdexcept>

#include "base/coding.h"

namespace vanon::seal {

namespace {

constexpr unsigned char kMagic[4] = {0xA7, 'V', 'S', 0x01};
constexpr size_t kNonceBytes = 12;
constexpr size_t kTagBytes = 16;

struct CtxFree {
  void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
};
using Ctx = std::unique_ptr<EVP_CIPHER_CTX, CtxFree>;

bool HasMagic(std::string_view v) {
  return v.size() >= sizeof kMagic && std::string_view(v.data(), sizeof kMagic) ==
                                          std::string_view(reinterpret_cast<const char*>(kMagic), sizeof kMagic);
}

// The associated data: a domain label, the record's header (magic, key id,
// nonce), then where it lives. Lengths are explicit, so no two places give
// the same bytes. Fed to the cipher piece by piece (GCM takes the AAD in
// several updates), so no buffer is built per record.
bool FeedAssociatedData(EVP_CIPHER_CTX* ctx, const RecordPlace& p, std::string_view header) {
  static constexpr char kLabel[] = "vanon.seal.v1";
  auto feed = [&](const void* data, size_t n) {
    int out = 0;
    return n == 0 ||
           EVP_CipherUpdate(ctx, nullptr, &out, static_cast<const unsigned char*>(data), static_cast<int>(n)) == 1;
  };
  auto feed_len = [&](size_t n) {
    const unsigned char be[4] = {static_cast<unsigned char>(n >> 24), static_cast<unsigned char>(n >> 16),
                                 static_cast<unsigned char>(n >> 8), static_cast<unsigned char>(n)};
    return feed(be, 4);
  };
  return feed(kLabel, sizeof kLabel) && feed_len(header.size()) && feed(header.data(), header.size()) &&
         feed_len(p.topic.size()) && feed(p.topic.data(), p.topic.size()) &&
         feed_len(static_cast<uint32_t>(p.partition)) && feed_len(p.key.size()) && feed(p.key.data(), p.key.size());
}

const unsigned char* U(std::string_view s) { return reinterpret_cast<const unsigned char*>(s.data()); }

// Header layout: magic, key id length and id, nonce. Returns the header's
// length, or 0 when `v` cannot hold one or names no key id. The id is
// checked here, not only looked up in the ring: Describe repeats it in
// errors and logs, and a damaged or crafted value could otherwise put line
// breaks or a raw identifier there.
size_t HeaderLength(std::string_view v) {
  if (v.size() < sizeof kMagic + 1) return 0;
  const size_t id_len = static_cast<unsigned char>(v[sizeof kMagic]);
  const size_t len = sizeof kMagic + 1 + id_len + kNonceBytes;
  if (id_len == 0 || v.size() < len + kTagBytes || !IsKeyId(v.substr(sizeof kMagic + 1, id_len))) return 0;
  return len;
}

}  // namespace

struct RecordSealer::Contexts {
  Ctx seal;
  std::map<std::string, Ctx, std::less<>> open;  // key id -> context
};

namespace {

// A context for `key` in direction `encrypt`, its key schedule set; each
// record then sets only its nonce.
Ctx NewContext(const DataKey& key, bool encrypt) {
  Ctx ctx(EVP_CIPHER_CTX_new());
  if (!ctx || EVP_CipherInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, U(key.bytes), nullptr, encrypt ? 1 : 0) != 1) {
    throw std::runtime_error("AES-256-GCM context setup failed");
  }
  return ctx;
}

}  // namespace

RecordSealer::RecordSealer(Keyring keys) : keys_(std::move(keys)), counter_(0), contexts_(new Contexts) {
  if (RAND_bytes(prefix_, sizeof prefix_) != 1) throw std::runtime_error("RAND_bytes failed");
  contexts_->seal = NewContext(keys_.active(), true);
}

RecordSealer::~RecordSealer() = default;

// Under mu_.
void RecordSealer::NextNonce(unsigned char nonce[12]) {
  if (counter_ > 0xffffffffull) {
    if (RAND_bytes(prefix_, sizeof prefix_) != 1) throw std::runtime_error("RAND_bytes failed");
    counter_ = 0;
  }
  std::copy(prefix_, prefix_ + 8, nonce);
  for (int i = 0; i < 4; ++i) nonce[8 + i] = static_cast<unsigned char>(counter_ >> (24 - 8 * i));
  ++counter_;
}

std::string RecordSealer::Seal(const RecordPlace& place, std::string_view plaintext) {
  const DataKey& key = keys_.active();
  std::string out;
  out.reserve(sizeof kMagic + 1 + key.id.size() + kNonceBytes + plaintext.size() + kTagBytes);
  out.append(reinterpret_cast<const char*>(kMagic), sizeof kMagic);
  out.push_back(static_cast<char>(key.id.size()));
  out.append(key.id);
  std::lock_guard<std::mutex> l(mu_);
  unsigned char nonce[kNonceBytes];
  NextNonce(nonce);
  out.append(reinterpret_cast<const char*>(nonce), kNonceBytes);
  const size_t header = out.size();
  out.resize(header + plaintext.size() + kTagBytes);
  auto* body = reinterpret_cast<unsigned char*>(out.data() + header);
  EVP_CIPHER_CTX* ctx = contexts_->seal.get();
  int n = 0, m = 0;
  if (EVP_EncryptInit_ex(ctx, nullptr, nullptr, nullptr, nonce) != 1 ||
      !FeedAssociatedData(ctx, place, std::string_view(out.data(), header)) ||
      EVP_EncryptUpdate(ctx, body, &n, U(plaintext), static_cast<int>(plaintext.size())) != 1 ||
      EVP_EncryptFinal_ex(ctx, body + n, &m) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, kTagBytes, body + plaintext.size()) != 1) {
    throw std::runtime_error("AES-256-GCM sealing failed");
  }
  return out;
}

Opened RecordSealer::Open(const RecordPlace& place, std::string_view sealed) const {
  Opened o;
  if (!HasMagic(sealed)) {
    o.status = OpenStatus::kNotSealed;
    return o;
  }
  const size_t header = HeaderLength(sealed);
  if (header == 0) return o;  // kMalformed
  o.key_id.assign(sealed.substr(sizeof kMagic + 1, header - sizeof kMagic - 1 - kNonceBytes));
  const DataKey* key = keys_.Find(o.key_id);
  if (key == nullptr) {
    o.status = OpenStatus::kUnknownKey;
    return o;
  }
  const std::string_view body = sealed.substr(header, sealed.size() - header - kTagBytes);
  std::string tag(sealed.substr(sealed.size() - kTagBytes));
  o.plaintext.resize(body.size());
  auto* out = reinterpret_cast<unsigned char*>(o.plaintext.data());
  std::lock_guard<std::mutex> l(mu_);
  auto it = contexts_->open.find(o.key_id);
  if (it == contexts_->open.end()) it = contexts_->open.emplace(o.key_id, NewContext(*key, false)).first;
  EVP_CIPHER_CTX* ctx = it->second.get();
  int n = 0, m = 0;
  const bool ok = EVP_DecryptInit_ex(ctx, nullptr, nullptr, nullptr, U(sealed.substr(header - kNonceBytes))) == 1 &&
                  FeedAssociatedData(ctx, place, sealed.substr(0, header)) &&
                  EVP_DecryptUpdate(ctx, out, &n, U(body), static_cast<int>(body.size())) == 1 &&
                  EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, kTagBytes, tag.data()) == 1 &&
                  EVP_DecryptFinal_ex(ctx, out + n, &m) == 1;
  if (!ok) {
    o.plaintext.clear();
    o.status = OpenStatus::kFailed;
    return o;
  }
  o.status = OpenStatus::kOk;
  return o;
}

std::string RecordSealer::KeyIdOf(std::string_view sealed) {
  if (!HasMagic(sealed)) return {};
  const size_t header = HeaderLength(sealed);
  if (header == 0) return {};
  return std::string(sealed.substr(sizeof kMagic + 1, header - sizeof kMagic - 1 - kNonceBytes));
}

std::string RecordSealer::Describe(const Opened& o, std::string_view keys_source) {
  switch (o.status) {
    case OpenStatus::kOk:
      return "opened";
    case OpenStatus::kNotSealed:
      return "the value is not sealed (written in clear, e.g. by a version without encryption)";
    case OpenStatus::kMalformed:
      return "the sealed value is malformed (truncated or a bad key id)";
    case OpenStatus::kUnknownKey:
      return "sealed with key id '" + o.key_id + "', which " + std::string(keys_source) + " does not hold";
    case OpenStatus::kFailed:
      return "does not open with key id '" + o.key_id + "' from " + std::string(keys_source) +
             " (wrong key bytes for that id, or the record was altered or copied from another topic, partition or "
             "key)";
  }
  return "?";
}

}  // namespace vanon::seal
