// A bounded map from VIN to what ingestion derives from it, looked up once
// per input event. std::unordered_map<std::string, ...> cost about 8% of
// vanon's CPU at 100,000 vehicles (issue 18, perf): a prime-modulo division,
// then a bucket, a node and a heap-held key, each a cache miss. Here a
// lookup reads one slot (hash and index, open addressing in a power-of-two
// table at most half full) and the entry, whose VIN is stored inline.
// When full it starts over (the caller recomputes what it dropped).
#ifndef VANON_SERVICE_VIN_CACHE_H_
#define VANON_SERVICE_VIN_CACHE_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vanon::service {

template <typename V>
class VinCache {
 public:
  // max_entries is rounded up to a power of two.
  explicit VinCache(size_t max_entries) {
    size_t n = 1;
    while (n < max_entries) n <<= 1;
    max_entries_ = n;
    slots_.resize(2 * n);
  }

  // The value for `vin`, and true when it was just inserted (then it is a
  // default-constructed V). The pointer stays valid until the next call.
  std::pair<V*, bool> FindOrInsert(std::string_view vin) {
    const uint64_t hash = std::hash<std::string_view>()(vin) | 1;  // 0 marks an empty slot
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.hash == 0) break;
      if (s.hash == hash && entries_[s.index].Is(vin)) return {&entries_[s.index].value, false};
    }
    if (entries_.size() >= max_entries_) Clear();
    size_t i = hash & mask;
    while (slots_[i].hash != 0) i = (i + 1) & mask;
    slots_[i] = {hash, static_cast<uint32_t>(entries_.size())};
    Entry& e = entries_.emplace_back();
    e.Set(vin);
    return {&e.value, true};
  }

  size_t size() const { return entries_.size(); }

  void Clear() {
    entries_.clear();
    std::fill(slots_.begin(), slots_.end(), Slot{});
  }

 private:
  static constexpr size_t kInline = 24;  // a VIN is 17 characters

  struct Slot {
    uint64_t hash = 0;
    uint32_t index = 0;
  };

  struct Entry {
    uint32_t length = 0;
    char inline_vin[kInline];
    std::string long_vin;  // only for keys longer than kInline
    V value{};

    void Set(std::string_view vin) {
      length = static_cast<uint32_t>(vin.size());
      if (vin.size() <= kInline) {
        std::memcpy(inline_vin, vin.data(), vin.size());
      } else {
        long_vin.assign(vin);
      }
    }
    bool Is(std::string_view vin) const {
      if (vin.size() != length) return false;
      return vin.size() <= kInline ? std::memcmp(inline_vin, vin.data(), vin.size()) == 0 : long_vin == vin;
    }
  };

  size_t max_entries_;
  std::vector<Slot> slots_;
  std::vector<Entry> entries_;
};

}  // namespace vanon::service

#endif  // VANON_SERVICE_VIN_CACHE_H_
