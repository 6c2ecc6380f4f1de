#include "vanon/ingest/vehicle_order.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>

namespace vanon::ingest {

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
  // The rest of each key, for the check below.
  static_assert(kHmacTokenBytes == 32);
  std::vector<std::array<uint8_t, 24>> rest(events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    keys[i] = {Prefix(events[i].vehicle_key), by_time ? events[i].ts_ms : 0, static_cast<uint32_t>(i)};
    std::memcpy(rest[i].data(), events[i].vehicle_key.data() + 8, rest[i].size());
  }
  // Equal prefixes almost always mean the same vehicle, so sort on the
  // inline key alone: comparing whole keys on every tie (a vehicle's events
  // all tie) read each event's key from memory and was most of the sort.
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    if (a.ts != b.ts) return a.ts < b.ts;
    return a.index < b.index;
  });
  // Two vehicles sharing 64 bits of HMAC end up interleaved in one run of
  // equal prefixes; then (about never) sort again on the whole key. The
  // check compares the rest of the keys from a compact copy: reading them
  // from the events, one random access per event, was most of its cost.
  bool shared_prefix = false;
  for (size_t i = 1; i < keys.size() && !shared_prefix; ++i) {
    shared_prefix = keys[i].prefix == keys[i - 1].prefix && rest[keys[i].index] != rest[keys[i - 1].index];
  }
  if (shared_prefix) {
    std::sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
      if (a.prefix != b.prefix) return a.prefix < b.prefix;
      const HmacToken& ka = events[a.index].vehicle_key;
      const HmacToken& kb = events[b.index].vehicle_key;
      if (ka != kb) return ka < kb;
      if (a.ts != b.ts) return a.ts < b.ts;
      return a.index < b.index;
    });
  }
  std::vector<uint32_t> order(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) order[i] = keys[i].index;
  return order;
}

}  // namespace vanon::ingest
