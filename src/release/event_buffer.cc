#include "vanon/release/event_buffer.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace vanon {

namespace {

// Appends `from` to the two lists in (ts, offset) order. Arrival order is
// offset order, and event times are nearly sorted, so sorting small keys and
// then moving each event once is cheap.
void AppendSorted(std::vector<KeyedEvent>& from, std::vector<BufferedEvent>* events,
                  std::vector<std::pair<int64_t, int64_t>>* keys) {
  struct Key {
    int64_t ts, offset;
    uint32_t index;
  };
  std::vector<Key> order(from.size());
  for (size_t i = 0; i < from.size(); ++i) order[i] = {from[i].ts_ms, from[i].offset, static_cast<uint32_t>(i)};
  std::sort(order.begin(), order.end(),
            [](const Key& a, const Key& b) { return std::tie(a.ts, a.offset) < std::tie(b.ts, b.offset); });
  events->reserve(events->size() + from.size());
  keys->reserve(keys->size() + from.size());
  for (const Key& k : order) {
    events->push_back(std::move(from[k.index].event));
    keys->emplace_back(k.ts, k.offset);
  }
}

}  // namespace

EventBuffer::EventBuffer(int64_t epoch_length_ms) : length_ms_(epoch_length_ms) {
  if (length_ms_ <= 0) throw std::invalid_argument("EventBuffer: epoch length must be positive");
}

int64_t EventBuffer::EpochOf(int64_t ts_ms) const {
  int64_t q = ts_ms / length_ms_;
  if (ts_ms % length_ms_ < 0) --q;
  return q;
}

void EventBuffer::Add(KeyedEvent e) {
  by_epoch_[EpochOf(e.ts_ms)].push_back(std::move(e));
  ++size_;
}

EpochEvents EventBuffer::Take(int64_t start_ms, int64_t end_ms) {
  EpochEvents out;
  // Epoch lists that lie wholly before end_ms go out whole; the one that
  // straddles it (if end_ms is not an epoch boundary) is split.
  std::vector<KeyedEvent> current, old;
  auto it = by_epoch_.begin();
  while (it != by_epoch_.end() && it->first * length_ms_ < end_ms) {
    std::vector<KeyedEvent> keep;
    for (KeyedEvent& e : it->second) {
      if (e.ts_ms >= end_ms) {
        keep.push_back(std::move(e));
      } else {
        (e.ts_ms >= start_ms ? current : old).push_back(std::move(e));
      }
    }
    size_ -= it->second.size() - keep.size();
    if (keep.empty()) {
      it = by_epoch_.erase(it);
    } else {
      it->second = std::move(keep);
      ++it;
    }
  }
  AppendSorted(current, &out.current, &out.current_keys);
  AppendSorted(old, &out.old, &out.old_keys);
  return out;
}

}  // namespace vanon
