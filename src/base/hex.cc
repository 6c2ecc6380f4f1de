#include "base/hex.h"

namespace vanon::base {

namespace {
constexpr char kDigits[] = "0123456789abcdef";

int DigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}
}  // namespace

void AppendHex(std::string* out, std::string_view bytes) {
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out->push_back(kDigits[b >> 4]);
    out->push_back(kDigits[b & 15]);
  }
}

std::string HexEncode(std::string_view bytes) {
  std::string out;
  out.reserve(2 * bytes.size());
  AppendHex(&out, bytes);
  return out;
}

void AppendHex64(std::string* out, uint64_t value) {
  char buf[16];
  for (int i = 15; i >= 0; --i, value >>= 4) buf[i] = kDigits[value & 15];
  out->append(buf, 16);
}

bool HexDecode(std::string_view hex, std::string* out) {
  if (hex.size() % 2 != 0) return false;
  out->clear();
  out->reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = DigitValue(hex[i]);
    const int lo = DigitValue(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>(hi * 16 + lo));
  }
  return true;
}

}  // namespace vanon::base
