#include "vanon/ingest/vehicle_order.h"

#include <algorithm>
#include <stdexcept>

namespace vanon {

namespace {

struct Key {
  uint64_t prefix;  // first 8 bytes of the vehicle key, big endian: orders like the bytes
  int64_t ts;
  uint32_t index;
};

uint64_t Prefix(const HmacToken& t) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | t[static_cast<size_t>(i)];
  return v;
}

}  // namespace

std::vector<uint32_t> OrderByVehicle(std::span<const BufferedEvent> events, bool by_time) {
  if (events.size() > UINT32_MAX) throw std::length_error("OrderByVehicle: more than 2^32 events");
  std::vector<Key> keys(events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    keys[i] = {Prefix(events[i].vehicle_key), by_time ? events[i].ts_ms : 0, static_cast<uint32_t>(i)};
  }
  std::sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    // Equal prefixes are rare (two vehicles sharing 64 bits of HMAC), but
    // must still order by the whole key.
    const HmacToken& ka = events[a.index].vehicle_key;
    const HmacToken& kb = events[b.index].vehicle_key;
    if (ka != kb) return ka < kb;
    if (a.ts != b.ts) return a.ts < b.ts;
    return a.index < b.index;
  });
  std::vector<uint32_t> order(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) order[i] = keys[i].index;
  return order;
}

}  // namespace vanon
