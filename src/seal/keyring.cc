#include "vanon/seal/keyring.h"

#include <openssl/rand.h>

#include <cctype>
#include <set>
#include <stdexcept>

#include "base/hex.h"

namespace vanon::seal {

namespace {

constexpr size_t kKeyBytes = 32;
constexpr size_t kMaxIdBytes = 32;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// One "ID:HEX" entry; `n` numbers it in messages (key material never is).
bool ParseEntry(std::string_view entry, size_t n, DataKey* out, std::string* error) {
  const std::string where = "entry " + std::to_string(n);
  const size_t colon = entry.find(':');
  if (colon == std::string_view::npos) {
    *error = where + " is not ID:HEX";
    return false;
  }
  out->id = std::string(Trim(entry.substr(0, colon)));
  if (!IsKeyId(out->id)) {
    *error = where + ": the key id must be 1-32 characters of A-Z a-z 0-9 . _ -";
    return false;
  }
  std::string hex(Trim(entry.substr(colon + 1)));
  for (char& c : hex) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!base::HexDecode(hex, &out->bytes) || out->bytes.size() != kKeyBytes) {
    *error = "key " + out->id + ": the key must be 64 hex digits (32 bytes, AES-256)";
    return false;
  }
  return true;
}

}  // namespace

bool IsKeyId(std::string_view id) {
  if (id.empty() || id.size() > kMaxIdBytes) return false;
  for (char c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

std::optional<Keyring> Keyring::Parse(std::string_view text, std::string* error) {
  std::vector<DataKey> keys;
  std::set<std::string> ids;
  text = Trim(text);
  size_t n = 0;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    std::string_view entry = Trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    DataKey k;
    if (!ParseEntry(entry, ++n, &k, error)) return std::nullopt;
    if (!ids.insert(k.id).second) {
      *error = "key id " + k.id + " appears twice";
      return std::nullopt;
    }
    keys.push_back(std::move(k));
  }
  if (keys.empty()) {
    *error = "no key (expected ID:HEX[,ID:HEX...])";
    return std::nullopt;
  }
  return Keyring(std::move(keys));
}

const DataKey* Keyring::Find(std::string_view id) const {
  for (const DataKey& k : keys_) {
    if (k.id == id) return &k;
  }
  return nullptr;
}

Keyring Keyring::Random(std::string id) {
  DataKey k{std::move(id), std::string(kKeyBytes, '\0')};
  if (RAND_bytes(reinterpret_cast<unsigned char*>(k.bytes.data()), kKeyBytes) != 1) {
    throw std::runtime_error("RAND_bytes failed");
  }
  return Keyring({std::move(k)});
}

}  // namespace vanon::seal
