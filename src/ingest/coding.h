// Little-endian fixed-width and LEB128 varint encoding, with bounds-checked
// readers that consume from the front of a string_view.

#ifndef VANON_SRC_INGEST_CODING_H_
#define VANON_SRC_INGEST_CODING_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace vanon {
namespace ingest_internal {

inline void PutFixed64(std::string* dst, std::uint64_t v) {
  char buf[8];
  for (int i = 0; i < 8; ++i) buf[i] = static_cast<char>(v >> (8 * i));
  dst->append(buf, 8);
}

inline void PutVarint64(std::string* dst, std::uint64_t v) {
  while (v >= 0x80) {
    dst->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  dst->push_back(static_cast<char>(v));
}

inline void PutLengthPrefixed(std::string* dst, std::string_view s) {
  PutVarint64(dst, s.size());
  dst->append(s);
}

inline bool GetFixed64(std::string_view* in, std::uint64_t* v) {
  if (in->size() < 8) return false;
  std::uint64_t r = 0;
  for (int i = 0; i < 8; ++i) {
    r |= std::uint64_t(static_cast<unsigned char>((*in)[i])) << (8 * i);
  }
  in->remove_prefix(8);
  *v = r;
  return true;
}

inline bool GetVarint64(std::string_view* in, std::uint64_t* v) {
  std::uint64_t r = 0;
  for (std::size_t i = 0; i < in->size() && i < 10; ++i) {
    const std::uint64_t byte = static_cast<unsigned char>((*in)[i]);
    // The tenth byte may only carry the top bit of a 64-bit value.
    if (i == 9 && byte > 1) return false;
    r |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      in->remove_prefix(i + 1);
      *v = r;
      return true;
    }
  }
  return false;
}

inline bool GetLengthPrefixed(std::string_view* in, std::string_view* s) {
  std::uint64_t n;
  if (!GetVarint64(in, &n) || n > in->size()) return false;
  *s = in->substr(0, n);
  in->remove_prefix(n);
  return true;
}

}  // namespace ingest_internal
}  // namespace vanon

#endif  // VANON_SRC_INGEST_CODING_H_
