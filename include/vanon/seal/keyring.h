// The data keys that seal what vanon writes to its internal topics
// (docs/privacy-model.md, "What vanon keeps"; docs/state.md, "Encryption").
//
// A key ring is read from one secret, never from the config file and never
// defaulted: "ID:HEX[,ID:HEX...]", each HEX 64 hex digits (AES-256). The
// first key seals new records; every key opens the records sealed under its
// id, so a rotation puts the new key first and keeps the old ones until no
// live record names them (docs/operations.md, "Rotating the state key").
#ifndef VANON_SEAL_KEYRING_H_
#define VANON_SEAL_KEYRING_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vanon::seal {

struct DataKey {
  std::string id;     // 1-32 of [A-Za-z0-9._-]: written in every record
  std::string bytes;  // 32 bytes
};

// Whether `id` has the syntax of a key id. A sealed value names its key id
// in clear, and a reader repeats it in errors and logs, so a value naming
// anything else is refused as malformed rather than echoed.
bool IsKeyId(std::string_view id);

class Keyring {
 public:
  // Parses the secret's text. On failure returns nullopt and says why in
  // *error, without echoing any key material.
  static std::optional<Keyring> Parse(std::string_view text, std::string* error);

  const DataKey& active() const { return keys_.front(); }
  const DataKey* Find(std::string_view id) const;
  const std::vector<DataKey>& keys() const { return keys_; }

  // A fresh ring of one random key (the demo's, for one run only).
  static Keyring Random(std::string id);

 private:
  explicit Keyring(std::vector<DataKey> keys) : keys_(std::move(keys)) {}
  std::vector<DataKey> keys_;  // never empty
};

}  // namespace vanon::seal

#endif  // VANON_SEAL_KEYRING_H_
