// The sealed-value reader (seal::RecordSealer::Open and KeyIdOf): every
// state changelog record and every DP partial is read back through it, from
// topics that anyone with write access can fill, so the reader sees damaged,
// truncated and crafted values. The harness holds a fixed key ring
// (FuzzSealer) and opens at a fixed place (FuzzSealPlace).
//
// Input, by the low bit of its first byte:
//   0: the rest is a value as read from the topic; it is opened.
//   1: then a count n (0-4) and n edits of 4 bytes (operation, position as
//      2 bytes little-endian, byte); the rest is a plaintext. The harness
//      seals the plaintext, applies the edits to the sealed value and opens
//      the result.
//
// Invariants: Open and KeyIdOf agree on the key id, and a key id they report
// has the key ring's syntax (it goes into error messages and logs);
// Describe is one line that names no key material; a value that opens does
// not open at another place, and no single-byte change of it opens; an
// edited sealed value opens exactly when the edits changed nothing, and then
// to the plaintext that was sealed.
#include <cctype>
#include <string>

#include "base/hex.h"
#include "fuzz_support.h"
#include "fuzz_targets.h"
#include "vanon/seal/keyring.h"
#include "vanon/seal/record_sealer.h"

namespace vanon::fuzz {

namespace {

constexpr std::string_view kMagic("\xA7VS\x01", 4);
constexpr size_t kTagBytes = 16;

seal::Keyring RingOf(const std::string& text) {
  std::string error;
  std::optional<seal::Keyring> ring = seal::Keyring::Parse(text, &error);
  if (!ring) Fail("the harness's key ring does not parse: " + error);
  return *ring;
}

std::string KeyHex(char fill) { return base::HexEncode(std::string(32, fill)); }

// The harness's ring holds k1 (active) and k0 with these bytes; Other()
// holds k1 with other bytes.
seal::RecordSealer& Other() {
  static seal::RecordSealer* sealer = new seal::RecordSealer(RingOf("k1:" + KeyHex('\x33')));
  return *sealer;
}

bool ValidKeyId(std::string_view id) {
  if (id.empty() || id.size() > 32) return false;
  for (char c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

void CheckDescription(const seal::Opened& o) {
  const std::string d = seal::RecordSealer::Describe(o, "VANON_STATE_KEYS");
  for (char c : d) Check(c >= 0x20 && c < 0x7f, "Describe gives more than one printable line");
  for (const seal::DataKey& k : FuzzSealer().keys().keys()) {
    Check(d.find(k.bytes) == std::string::npos && d.find(base::HexEncode(k.bytes)) == std::string::npos,
          "Describe names key bytes");
  }
}

// What holds for any value opened at the harness's place.
seal::Opened OpenAndCheck(std::string_view value) {
  const seal::Opened o = FuzzSealer().Open(FuzzSealPlace(), value);
  Check((o.status == seal::OpenStatus::kNotSealed) == (value.substr(0, kMagic.size()) != kMagic),
        "Open calls a value without the magic sealed, or one with it not sealed");
  Check(seal::RecordSealer::KeyIdOf(value) == o.key_id, "Open and KeyIdOf read different key ids");
  Check(o.key_id.empty() || ValidKeyId(o.key_id), "a reported key id is not a key id");
  Check(o.key_id.empty() == (o.status == seal::OpenStatus::kNotSealed || o.status == seal::OpenStatus::kMalformed),
        "a key id is reported for a value without one, or none for a value with one");
  Check(o.status == seal::OpenStatus::kOk || o.plaintext.empty(), "a value that did not open has a plaintext");
  CheckDescription(o);
  return o;
}

// A value that opened: anywhere else, or changed in any byte, it does not.
void CheckOpened(std::string_view value, const seal::Opened& o) {
  Check(o.plaintext.size() + 4 + 1 + o.key_id.size() + 12 + kTagBytes == value.size(),
        "an opened plaintext's length is not the value's");
  seal::RecordPlace elsewhere = FuzzSealPlace();
  elsewhere.partition += 1;
  Check(FuzzSealer().Open(elsewhere, value).status == seal::OpenStatus::kFailed, "a value opens in another partition");
  elsewhere = FuzzSealPlace();
  elsewhere.topic = "vanon.dp.partials";
  Check(FuzzSealer().Open(elsewhere, value).status == seal::OpenStatus::kFailed, "a value opens in another topic");
  elsewhere = FuzzSealPlace();
  const std::string other_key = std::string(elsewhere.key) + "x";
  elsewhere.key = other_key;
  Check(FuzzSealer().Open(elsewhere, value).status == seal::OpenStatus::kFailed, "a value opens under another key");
  if (o.key_id == "k1") {
    Check(Other().Open(FuzzSealPlace(), value).status == seal::OpenStatus::kFailed, "a value opens with other bytes");
  }
  const size_t step = value.size() / 16 + 1;
  for (size_t at = 0; at < value.size(); at += step) {
    std::string changed(value);
    changed[at] = static_cast<char>(changed[at] ^ 0x01);
    Check(FuzzSealer().Open(FuzzSealPlace(), changed).status != seal::OpenStatus::kOk, "a changed value opens");
  }
  Check(FuzzSealer().Open(FuzzSealPlace(), value.substr(0, value.size() - 1)).status != seal::OpenStatus::kOk,
        "a truncated value opens");
}

// `sealed` after the edits (4 bytes each: operation, position, byte): flip
// bits of a byte, truncate, insert a byte, delete a byte.
std::string ApplyEdits(std::string_view edits, std::string sealed) {
  for (size_t at = 0; at + 4 <= edits.size(); at += 4) {
    const unsigned op = static_cast<unsigned char>(edits[at]) % 4;
    const size_t pos = (static_cast<unsigned char>(edits[at + 1]) | static_cast<unsigned char>(edits[at + 2]) << 8) %
                       (sealed.size() + 1);
    const char byte = edits[at + 3];
    if (op == 0 && pos < sealed.size()) sealed[pos] = static_cast<char>(sealed[pos] ^ byte);
    if (op == 1) sealed.resize(pos);
    if (op == 2) sealed.insert(sealed.begin() + static_cast<std::ptrdiff_t>(pos), byte);
    if (op == 3 && pos < sealed.size()) sealed.erase(pos, 1);
  }
  return sealed;
}

void SealEditOpen(std::string_view input) {
  const size_t edit_bytes = input.empty() ? 0 : 4 * (static_cast<unsigned char>(input[0]) % 5);
  if (input.size() < 1 + edit_bytes) return;
  const std::string_view edits = input.substr(1, edit_bytes);
  const std::string_view plaintext = input.substr(1 + edit_bytes);
  const std::string sealed = FuzzSealer().Seal(FuzzSealPlace(), plaintext);
  const seal::Opened o = OpenAndCheck(sealed);
  Check(o.status == seal::OpenStatus::kOk && o.plaintext == plaintext && o.key_id == "k1",
        "a sealed value does not open to its plaintext");
  CheckOpened(sealed, o);
  const std::string edited = ApplyEdits(edits, sealed);
  const seal::Opened e = OpenAndCheck(edited);
  Check((e.status == seal::OpenStatus::kOk) == (edited == sealed), "an edited sealed value opens");
}

}  // namespace

seal::RecordSealer& FuzzSealer() {
  static seal::RecordSealer* sealer = new seal::RecordSealer(RingOf("k1:" + KeyHex('\x11') + ",k0:" + KeyHex('\x22')));
  return *sealer;
}

seal::RecordPlace FuzzSealPlace() { return {"vanon.state.changelog", 3, "store-key"}; }

void FuzzSealedRecord(std::string_view input) {
  if (input.empty()) return;
  if ((static_cast<unsigned char>(input[0]) & 1) == 1) return SealEditOpen(input.substr(1));
  const std::string_view value = input.substr(1);
  const seal::Opened o = OpenAndCheck(value);
  if (o.status == seal::OpenStatus::kOk) CheckOpened(value, o);
}

}  // namespace vanon::fuzz
