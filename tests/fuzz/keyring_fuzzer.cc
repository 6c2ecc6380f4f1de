// The key-ring reader (seal::Keyring::Parse): the state keys secret,
// "ID:HEX[,ID:HEX...]", read from the environment at start. Operators write
// it by hand and it is key material: a refusal must say what is wrong
// without repeating any of it. Input: the secret's text.
//
// Invariants: a refusal has a message, one printable line that repeats no
// key (no run of more than 32 hex digits: key ids are at most 32
// characters, keys 64 hex digits); a
// ring holds at least one key, each with a key id of the documented syntax,
// unique, and 32 bytes; written back as "ID:HEX,..." it parses to the same
// ring; it seals and opens a value.
#include <cctype>
#include <set>
#include <string>

#include "base/hex.h"
#include "fuzz_support.h"
#include "fuzz_targets.h"
#include "vanon/seal/keyring.h"
#include "vanon/seal/record_sealer.h"

namespace vanon::fuzz {

namespace {

bool ValidKeyId(std::string_view id) {
  if (id.empty() || id.size() > 32) return false;
  for (char c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

size_t LongestHexRun(std::string_view text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = std::isxdigit(static_cast<unsigned char>(c)) ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

void CheckRefusal(const std::string& error) {
  Check(!error.empty(), "a refused key ring has no message");
  for (char c : error) Check(c >= 0x20 && c < 0x7f, "a key ring message is more than one printable line");
  Check(LongestHexRun(error) <= 32, "a key ring message holds a key's worth of hex digits");
}

void CheckRing(const seal::Keyring& ring) {
  Check(!ring.keys().empty() && &ring.active() == &ring.keys().front(), "a key ring has no active key");
  std::set<std::string> ids;
  std::string text;
  for (const seal::DataKey& k : ring.keys()) {
    Check(ValidKeyId(k.id), "a key id is not of the documented syntax");
    Check(k.bytes.size() == 32, "a key is not 32 bytes");
    Check(ids.insert(k.id).second, "a key id appears twice");
    Check(ring.Find(k.id) == &k, "a key is not found by its id");
    text += (text.empty() ? "" : ",") + k.id + ":" + base::HexEncode(k.bytes);
  }
  std::string error;
  const std::optional<seal::Keyring> again = seal::Keyring::Parse(text, &error);
  Check(again && again->keys().size() == ring.keys().size(), "a key ring written back does not parse");
  for (size_t i = 0; i < ring.keys().size(); ++i) {
    Check(again->keys()[i].id == ring.keys()[i].id && again->keys()[i].bytes == ring.keys()[i].bytes,
          "a key ring written back parses to another ring");
  }
  seal::RecordSealer sealer(ring);
  const seal::RecordPlace place{"vanon.state.changelog", 0, "k"};
  const seal::Opened o = sealer.Open(place, sealer.Seal(place, "value"));
  Check(o.status == seal::OpenStatus::kOk && o.plaintext == "value" && o.key_id == ring.active().id,
        "a parsed key ring does not open what it sealed");
}

}  // namespace

void FuzzKeyring(std::string_view input) {
  std::string error;
  const std::optional<seal::Keyring> ring = seal::Keyring::Parse(input, &error);
  if (!ring) return CheckRefusal(error);
  CheckRing(*ring);
}

}  // namespace vanon::fuzz
