// Byte coding for every stored record and key (LevelDB's util/coding.h):
// little-endian fixed-width integers, LEB128 varints (zigzag for signed
// values), length-prefixed bytes, and big-endian integers for RocksDB keys,
// whose byte order must equal numeric order. docs/state.md lists the records
// built from these pieces; none of them may change its bytes.
//
// One reader: the Get* functions consume from the front of a string_view and
// return false (leaving the output unspecified) when the input is short or
// malformed; ByteReader is the same functions over a cursor it owns.

#ifndef VANON_SRC_BASE_CODING_H_
#define VANON_SRC_BASE_CODING_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace vanon::base {

// ---- writers -------------------------------------------------------------

inline void PutFixed64(std::string* dst, uint64_t v) {
  char buf[8];
  for (int i = 0; i < 8; ++i) buf[i] = static_cast<char>(v >> (8 * i));
  dst->append(buf, 8);
}

inline void PutVarint64(std::string* dst, uint64_t v) {
  while (v >= 0x80) {
    dst->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  dst->push_back(static_cast<char>(v));
}

// Zigzag maps small negative numbers to small unsigned ones (-1 -> 1, 1 -> 2).
inline uint64_t ZigZag(int64_t v) { return (static_cast<uint64_t>(v) << 1) ^ (v < 0 ? ~uint64_t{0} : uint64_t{0}); }
inline int64_t UnZigZag(uint64_t v) { return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1)); }

inline void PutSignedVarint64(std::string* dst, int64_t v) { PutVarint64(dst, ZigZag(v)); }

inline void PutLengthPrefixed(std::string* dst, std::string_view bytes) {
  PutVarint64(dst, bytes.size());
  dst->append(bytes);
}

// Big-endian: for keys, so that RocksDB's bytewise order is numeric order.
inline void PutBigEndian32(std::string* dst, uint32_t v) {
  for (int i = 3; i >= 0; --i) dst->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
inline void PutBigEndian64(std::string* dst, uint64_t v) {
  for (int i = 7; i >= 0; --i) dst->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// ---- fixed-position decoders (the caller has checked the size) -----------

inline uint64_t DecodeFixed64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

// `width` (1 to 8) big-endian bytes of `s` from `pos`.
inline uint64_t DecodeBigEndian(std::string_view s, size_t pos, int width) {
  uint64_t v = 0;
  for (int i = 0; i < width; ++i) v = (v << 8) | static_cast<unsigned char>(s[pos + i]);
  return v;
}

// ---- the reader ------------------------------------------------------------

inline bool GetByte(std::string_view* in, uint8_t* v) {
  if (in->empty()) return false;
  *v = static_cast<uint8_t>((*in)[0]);
  in->remove_prefix(1);
  return true;
}

inline bool GetFixed64(std::string_view* in, uint64_t* v) {
  if (in->size() < 8) return false;
  *v = DecodeFixed64(in->data());
  in->remove_prefix(8);
  return true;
}

// Refuses overlong input and non-minimal encodings (a trailing 0x00 byte):
// every value has exactly one encoding, and the writers above only produce
// that one, so refusing the others rejects no stored record.
inline bool GetVarint64(std::string_view* in, uint64_t* v) {
  uint64_t result = 0;
  for (size_t i = 0; i < in->size() && i < 10; ++i) {
    const uint64_t byte = static_cast<unsigned char>((*in)[i]);
    // The tenth byte may only carry the top bit of a 64-bit value.
    if (i == 9 && byte > 1) return false;
    result |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      if (byte == 0 && i > 0) return false;  // non-minimal
      in->remove_prefix(i + 1);
      *v = result;
      return true;
    }
  }
  return false;
}

inline bool GetVarint32(std::string_view* in, uint32_t* v) {
  uint64_t wide;
  if (!GetVarint64(in, &wide) || wide > UINT32_MAX) return false;
  *v = static_cast<uint32_t>(wide);
  return true;
}

inline bool GetSignedVarint64(std::string_view* in, int64_t* v) {
  uint64_t raw;
  if (!GetVarint64(in, &raw)) return false;
  *v = UnZigZag(raw);
  return true;
}

inline bool GetSignedVarint32(std::string_view* in, int32_t* v) {
  int64_t wide;
  if (!GetSignedVarint64(in, &wide) || wide < INT32_MIN || wide > INT32_MAX) return false;
  *v = static_cast<int32_t>(wide);
  return true;
}

inline bool GetBytes(std::string_view* in, size_t n, std::string_view* out) {
  if (n > in->size()) return false;
  *out = in->substr(0, n);
  in->remove_prefix(n);
  return true;
}

inline bool GetLengthPrefixed(std::string_view* in, std::string_view* out) {
  uint64_t n;
  return GetVarint64(in, &n) && n <= in->size() && GetBytes(in, static_cast<size_t>(n), out);
}

// The Get* functions over a cursor, for decoders that read many fields.
class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}

  size_t remaining() const { return in_.size(); }
  bool done() const { return in_.empty(); }
  std::string_view Rest() const { return in_; }

  bool GetByte(uint8_t* v) { return vanon::base::GetByte(&in_, v); }
  bool GetFixed64(uint64_t* v) { return vanon::base::GetFixed64(&in_, v); }
  bool GetVarint64(uint64_t* v) { return vanon::base::GetVarint64(&in_, v); }
  bool GetVarint32(uint32_t* v) { return vanon::base::GetVarint32(&in_, v); }
  bool GetSignedVarint64(int64_t* v) { return vanon::base::GetSignedVarint64(&in_, v); }
  bool GetSignedVarint32(int32_t* v) { return vanon::base::GetSignedVarint32(&in_, v); }
  bool GetBytes(size_t n, std::string_view* out) { return vanon::base::GetBytes(&in_, n, out); }
  bool GetLengthPrefixed(std::string_view* out) { return vanon::base::GetLengthPrefixed(&in_, out); }

  // A count of items that each take at least one byte: anything larger than
  // what is left is a corrupt length, refused before anything is reserved.
  bool GetCount(uint32_t* n) { return GetVarint32(n) && *n <= in_.size(); }

 private:
  std::string_view in_;
};

}  // namespace vanon::base

#endif  // VANON_SRC_BASE_CODING_H_
