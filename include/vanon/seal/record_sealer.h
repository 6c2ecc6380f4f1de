// Authenticated encryption of the values vanon writes to internal topics
// (state changelog, DP partials): AES-256-GCM through OpenSSL's EVP API.
//
// Sealed value:
//   4 bytes  magic A7 'V' 'S' 01
//   u8       length L of the key id, then the key id (L bytes)
//   12 bytes nonce
//   ciphertext (as long as the plaintext), 16-byte tag
// The associated data binds the value to where it was written: topic,
// partition and record key (and the header above). A value copied under
// another key, partition or topic does not open, so nobody who can write to
// the topic but lacks the key can move one vehicle's state onto another.
//
// Thread-safe: calls are serialized (a release seals from one thread).
//
// Nonces: 8 random bytes drawn per sealer (and again every 2^32 records)
// followed by a 32-bit counter. Unlike a random 96-bit nonce per record,
// whose collision risk caps a key at about 2^32 records in all, this only
// needs the 64-bit prefixes of the processes sharing a key to differ.
#ifndef VANON_SEAL_RECORD_SEALER_H_
#define VANON_SEAL_RECORD_SEALER_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "vanon/seal/keyring.h"

namespace vanon::seal {

// Where a value lives; all of it is authenticated.
struct RecordPlace {
  std::string_view topic;
  int32_t partition = 0;
  std::string_view key;
};

enum class OpenStatus {
  kOk,
  kNotSealed,   // no magic: written in clear (by a version without sealing)
  kMalformed,   // magic, but too short or a bad key id
  kUnknownKey,  // sealed under a key id the ring does not hold
  kFailed,      // the tag does not verify: wrong key bytes, or the value was altered or moved
};

struct Opened {
  OpenStatus status = OpenStatus::kMalformed;
  std::string key_id;     // the record's key id, when it could be read
  std::string plaintext;  // kOk only
};

class RecordSealer {
 public:
  explicit RecordSealer(Keyring keys);
  ~RecordSealer();
  RecordSealer(const RecordSealer&) = delete;
  RecordSealer& operator=(const RecordSealer&) = delete;

  std::string Seal(const RecordPlace& place, std::string_view plaintext);
  Opened Open(const RecordPlace& place, std::string_view sealed) const;

  // The key id a sealed value names, or empty when it is not sealed.
  static std::string KeyIdOf(std::string_view sealed);

  const Keyring& keys() const { return keys_; }

  // One line for a value that did not open, naming the key id and what to
  // check; never any key material or plaintext.
  static std::string Describe(const Opened& o, std::string_view keys_source);

 private:
  void NextNonce(unsigned char nonce[12]);

  // Cipher contexts with their key schedule already set up, one to seal and
  // one per key id to open: a context and key expansion per record cost
  // more than the encryption of a small value.
  struct Contexts;

  Keyring keys_;
  mutable std::mutex mu_;  // guards the nonce state and the contexts
  unsigned char prefix_[8];
  uint64_t counter_;
  std::unique_ptr<Contexts> contexts_;
};

}  // namespace vanon::seal

#endif  // VANON_SEAL_RECORD_SEALER_H_
