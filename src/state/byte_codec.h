// Compact value encodings for state records: LEB128 varints (zigzag for
// signed values) and length-prefixed bytes. The reader never reads past its
// input and rejects non-minimal varints, so a record has exactly one encoding
// and a corrupted byte is more likely to be noticed than silently accepted.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

// Private to src/state (ingest keeps its own coder in ingest_internal).
namespace vanon::state_internal {

inline void PutVarint64(std::string* s, uint64_t v) {
  while (v >= 0x80) {
    s->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  s->push_back(static_cast<char>(v));
}

inline uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ (v < 0 ? ~uint64_t{0} : uint64_t{0});
}
inline int64_t UnZigZag(uint64_t v) {
  return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
}

inline void PutSignedVarint64(std::string* s, int64_t v) { PutVarint64(s, ZigZag(v)); }

inline void PutLengthPrefixed(std::string* s, std::string_view bytes) {
  PutVarint64(s, bytes.size());
  s->append(bytes);
}

// Consumes an encoded record front to back. Every getter returns false (and
// leaves the output unspecified) when the input is short or malformed.
class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}

  size_t remaining() const { return in_.size(); }
  bool done() const { return in_.empty(); }

  bool GetByte(uint8_t* v) {
    if (in_.empty()) return false;
    *v = static_cast<uint8_t>(in_[0]);
    in_.remove_prefix(1);
    return true;
  }

  bool GetVarint64(uint64_t* v) {
    uint64_t result = 0;
    for (int shift = 0, i = 0; i < 10; ++i, shift += 7) {
      if (i >= static_cast<int>(in_.size())) return false;
      const uint64_t byte = static_cast<unsigned char>(in_[i]);
      // The tenth byte may only carry the top bit of a 64-bit value.
      if (i == 9 && byte > 1) return false;
      result |= (byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        if (byte == 0 && i > 0) return false;  // non-minimal
        in_.remove_prefix(i + 1);
        *v = result;
        return true;
      }
    }
    return false;
  }

  bool GetVarint32(uint32_t* v) {
    uint64_t wide;
    if (!GetVarint64(&wide) || wide > UINT32_MAX) return false;
    *v = static_cast<uint32_t>(wide);
    return true;
  }

  bool GetSignedVarint64(int64_t* v) {
    uint64_t raw;
    if (!GetVarint64(&raw)) return false;
    *v = UnZigZag(raw);
    return true;
  }

  bool GetSignedVarint32(int32_t* v) {
    int64_t wide;
    if (!GetSignedVarint64(&wide) || wide < INT32_MIN || wide > INT32_MAX) return false;
    *v = static_cast<int32_t>(wide);
    return true;
  }

  bool GetBytes(size_t n, std::string_view* out) {
    if (n > in_.size()) return false;
    *out = in_.substr(0, n);
    in_.remove_prefix(n);
    return true;
  }

  bool GetLengthPrefixed(std::string_view* out) {
    uint64_t n;
    return GetVarint64(&n) && n <= in_.size() && GetBytes(static_cast<size_t>(n), out);
  }

  // A count of items that each take at least one byte: anything larger than
  // what is left is a corrupt length, refused before anything is reserved.
  bool GetCount(uint32_t* n) { return GetVarint32(n) && *n <= in_.size(); }

 private:
  std::string_view in_;
};

}  // namespace vanon::state_internal
