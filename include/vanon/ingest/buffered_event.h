// BufferedEvent is what the service stores in RocksDB for every accepted
// event until its release is computed. It holds no raw identifier: the
// vehicle and the trip are HMAC tokens (KeyedHasher).
//
// Encoding (version 2), all integers little endian:
//   u8      version (2; 1 is still read)
//   32 B    vehicle_key
//   32 B    trip_key
//   8 B     ts_ms (two's complement int64)
//   str     event
//   varint  number of qi_values, then one str each
//   varint  number of extras, then per extra u8 0 (absent) or 1 + str
//   str     payload_json
// where str = varint byte length + bytes, varint = LEB128 (at most 10
// bytes, value < 2^64). Nothing may follow payload_json.
//
// Version 2 differs only in meaning: payload_json is the payload as it will
// be published (PayloadTransformer ran at ingestion), so state never holds
// a dropped or uncoarsened field. Version 1 held the raw payload; whoever
// reads one must transform it before it can be published.

#ifndef VANON_INGEST_BUFFERED_EVENT_H_
#define VANON_INGEST_BUFFERED_EVENT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "vanon/ingest/keyed_hasher.h"
#include "vanon/ingest/qi_values.h"

namespace vanon::ingest {

inline constexpr std::uint8_t kBufferedEventVersion = 2;
inline constexpr std::uint8_t kBufferedEventRawPayloadVersion = 1;

struct BufferedEvent {
  HmacToken vehicle_key{};
  HmacToken trip_key{};
  std::int64_t ts_ms = 0;
  std::string event;
  QiValues qi_values;  // shared by the vehicle's events
  std::vector<std::optional<std::string>> extras;
  std::string payload_json;  // as published: see version 2 above

  friend bool operator==(const BufferedEvent&, const BufferedEvent&) = default;
};
// Buffers hold millions in vectors: a move that may throw would make each
// growth copy them all.
static_assert(std::is_nothrow_move_constructible_v<BufferedEvent>);

// Cache hints for loops over many buffered events, which are correct
// without them: the event's own bytes, and extra `i`, whose value lives in
// an allocation apart from the event (read it only once the event is in).
inline void PrefetchEvent(const BufferedEvent& e) {
  const char* p = reinterpret_cast<const char*>(&e);
  for (std::size_t offset = 0; offset < sizeof(BufferedEvent); offset += 64) __builtin_prefetch(p + offset);
}
inline void PrefetchExtra(const BufferedEvent& e, std::size_t i) {
  if (i < e.extras.size()) __builtin_prefetch(&e.extras[i]);
}

// Appends the encoding of `event` to *dst.
void EncodeBufferedEvent(const BufferedEvent& event, std::string* dst);

// Decodes exactly one record filling all of `src`. Returns false (leaving
// *event unspecified) on an unknown version, truncation, an over-long
// varint, a length past the end, or trailing bytes. Never reads out of
// bounds and never allocates more than src.size() allows. If `version` is
// given it receives the record's version.
bool DecodeBufferedEvent(std::string_view src, BufferedEvent* event, std::uint8_t* version = nullptr);

}  // namespace vanon::ingest

#endif  // VANON_INGEST_BUFFERED_EVENT_H_
