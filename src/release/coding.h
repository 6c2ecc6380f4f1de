// Little-endian fixed-width integers for the state encodings of this area.
#ifndef VANON_SRC_RELEASE_CODING_H_
#define VANON_SRC_RELEASE_CODING_H_

#include <cstdint>
#include <string>

namespace vanon {

inline void PutFixed64(std::string* dst, int64_t value) {
  const uint64_t v = static_cast<uint64_t>(value);
  for (int i = 0; i < 8; ++i) dst->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

inline int64_t GetFixed64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return static_cast<int64_t>(v);
}

}  // namespace vanon

#endif  // VANON_SRC_RELEASE_CODING_H_
