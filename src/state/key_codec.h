// Big-endian fixed-width integers make RocksDB's byte order equal to numeric
// order, so range scans by partition and event time are plain prefix seeks.
// The key layout of the column families (docs/state.md, "Stored formats");
// the byte coding itself is base/coding.h.
#ifndef VANON_SRC_STATE_KEY_CODEC_H_
#define VANON_SRC_STATE_KEY_CODEC_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "base/coding.h"

namespace vanon::state {

inline std::string EventKey(int32_t partition, int64_t ts_ms, int64_t offset) {
  std::string k;
  k.reserve(20);
  base::PutBigEndian32(&k, static_cast<uint32_t>(partition));
  base::PutBigEndian64(&k, static_cast<uint64_t>(ts_ms));
  base::PutBigEndian64(&k, static_cast<uint64_t>(offset));
  return k;
}

inline bool DecodeEventKey(std::string_view k, int32_t* partition, int64_t* ts_ms, int64_t* offset) {
  if (k.size() != 20) return false;
  *partition = static_cast<int32_t>(base::DecodeBigEndian(k, 0, 4));
  *ts_ms = static_cast<int64_t>(base::DecodeBigEndian(k, 4, 8));
  *offset = static_cast<int64_t>(base::DecodeBigEndian(k, 12, 8));
  return true;
}

inline std::string PartitionPrefix(int32_t partition) {
  std::string k;
  base::PutBigEndian32(&k, static_cast<uint32_t>(partition));
  return k;
}

// Name first, partition last: the "progress/" records written before the
// release loop existed already have this shape.
inline std::string MetaKey(int32_t partition, std::string_view name) {
  std::string k;
  k.reserve(name.size() + 5);
  k.append(name);
  k.push_back('/');
  base::PutBigEndian32(&k, static_cast<uint32_t>(partition));
  return k;
}

// Signatures and waiting tuples: the vehicle is an HMAC, used as raw bytes.
inline std::string VehicleKey(int32_t partition, std::string_view vehicle) {
  std::string k;
  k.reserve(4 + vehicle.size());
  base::PutBigEndian32(&k, static_cast<uint32_t>(partition));
  k.append(vehicle);
  return k;
}

// Release ids are signed (epochs before 1970 are negative). Flipping the sign
// bit of the two's complement maps INT64_MIN..INT64_MAX onto 0..UINT64_MAX in
// order, so byte order of the key is numeric order of the release.
constexpr uint64_t kReleaseSignBit = uint64_t{1} << 63;

inline std::string ReleaseKey(int32_t partition, int64_t release) {
  std::string k;
  k.reserve(12);
  base::PutBigEndian32(&k, static_cast<uint32_t>(partition));
  base::PutBigEndian64(&k, static_cast<uint64_t>(release) ^ kReleaseSignBit);
  return k;
}

inline bool DecodeReleaseKey(std::string_view k, int64_t* release) {
  if (k.size() != 12) return false;
  *release = static_cast<int64_t>(base::DecodeBigEndian(k, 4, 8) ^ kReleaseSignBit);
  return true;
}

}  // namespace vanon::state

#endif  // VANON_SRC_STATE_KEY_CODEC_H_
