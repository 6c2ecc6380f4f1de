// A bounded map from VIN to what ingestion derives from it, looked up once
// per input event. std::unordered_map<std::string, ...> cost about 8% of
// vanon's CPU at 100,000 vehicles (perf): a prime-modulo division, then a
// bucket, a node and a heap-held key, each a cache miss. Here a lookup reads
// one 8-byte slot (hash tag and index, open addressing in a power-of-two
// table at most half full) and the entry, whose VIN is stored inline.
//
// Over 100,000 vehicles both are cache misses, every event: memory latency,
// not instructions, was what the lookup cost (perf of bench_ingest_e2e). A
// consumer knows the next keys of its batch, so it can ask for them early:
// PrefetchSlot two messages ahead, PrefetchEntry one ahead (it reads the
// slot the previous call brought in). Both are hints; FindOrInsert is
// correct without them.
//
// The table starts small and doubles as vehicles arrive, up to max_entries;
// when that is full it starts over (the caller recomputes what it dropped).
#ifndef VANON_SRC_SERVICE_INGEST_VIN_CACHE_H_
#define VANON_SRC_SERVICE_INGEST_VIN_CACHE_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "service/ingest/inline_string.h"

namespace vanon::service {

template <typename V>
class VinCache {
 public:
  // max_entries is rounded up to a power of two.
  explicit VinCache(size_t max_entries) {
    size_t n = 1;
    while (n < max_entries) n <<= 1;
    max_entries_ = n;
    slots_.resize(2 * std::min<size_t>(n, kInitialEntries));
  }

  // The value for `vin`, and true when it was just inserted (then it is a
  // default-constructed V). The pointer stays valid until the next call.
  std::pair<V*, bool> FindOrInsert(std::string_view vin) {
    const uint64_t hash = Hash(vin);
    const uint32_t tag = Tag(hash);
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.tag == 0) break;
      if (s.tag == tag && entries_[s.index].Is(vin)) return {&entries_[s.index].value, false};
    }
    if (entries_.size() >= max_entries_) {
      Clear();
    } else if (entries_.size() >= slots_.size() / 2) {
      Grow();
    }
    return Insert(vin, hash, tag);
  }

  // Brings the slot `vin` hashes to into the cache.
  void PrefetchSlot(std::string_view vin) const { __builtin_prefetch(&slots_[Hash(vin) & (slots_.size() - 1)]); }

  // Brings the entry of `vin` into the cache, if its slot (best fetched by
  // an earlier PrefetchSlot) is the first one probed.
  void PrefetchEntry(std::string_view vin) const {
    const uint64_t hash = Hash(vin);
    const Slot& s = slots_[hash & (slots_.size() - 1)];
    if (s.tag != Tag(hash) || s.index >= entries_.size()) return;
    const char* p = reinterpret_cast<const char*>(&entries_[s.index]);
    for (size_t offset = 0; offset < sizeof(Entry); offset += 64) __builtin_prefetch(p + offset);
  }

  size_t size() const { return entries_.size(); }

  void Clear() {
    entries_.clear();
    std::fill(slots_.begin(), slots_.end(), Slot{});
  }

 private:
  static constexpr size_t kInline = 24;  // a VIN is 17 characters
  static constexpr size_t kInitialEntries = 1024;

  // Keys of 8 to 24 bytes (VINs) are read as three overlapping words and
  // mixed; others go through std::hash. Only a distribution matters here.
  static uint64_t Hash(std::string_view key) {
    if (key.size() < 8 || key.size() > kInline) return std::hash<std::string_view>()(key);
    uint64_t a, b, c;
    std::memcpy(&a, key.data(), 8);
    std::memcpy(&b, key.data() + (key.size() - 8) / 2, 8);
    std::memcpy(&c, key.data() + key.size() - 8, 8);
    uint64_t h = (a ^ ((b << 21) | (b >> 43)) ^ ((c << 42) | (c >> 22))) * 0x9E3779B97F4A7C15ull + key.size();
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 32);
  }
  // The slot's tag: the hash bits the table index does not use; 0 marks an
  // empty slot.
  static uint32_t Tag(uint64_t hash) { return static_cast<uint32_t>(hash >> 32) | 1; }

  std::pair<V*, bool> Insert(std::string_view vin, uint64_t hash, uint32_t tag) {
    const size_t mask = slots_.size() - 1;
    size_t i = hash & mask;
    while (slots_[i].tag != 0) i = (i + 1) & mask;
    slots_[i] = {tag, static_cast<uint32_t>(entries_.size())};
    Entry& e = entries_.emplace_back();
    e.Set(vin);
    return {&e.value, true};
  }

  // Twice the slots, every entry placed again (entries stay where they are).
  void Grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    const size_t mask = slots_.size() - 1;
    for (uint32_t k = 0; k < entries_.size(); ++k) {
      const uint64_t hash = Hash(entries_[k].vin.view());
      size_t i = hash & mask;
      while (slots_[i].tag != 0) i = (i + 1) & mask;
      slots_[i] = {Tag(hash), k};
    }
  }

  struct Slot {
    uint32_t tag = 0;
    uint32_t index = 0;
  };

  struct Entry {
    InlineString<kInline> vin;
    V value{};

    void Set(std::string_view key) { vin.assign(key); }
    bool Is(std::string_view key) const { return vin == key; }
  };

  size_t max_entries_;
  std::vector<Slot> slots_;
  std::vector<Entry> entries_;
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_INGEST_VIN_CACHE_H_
