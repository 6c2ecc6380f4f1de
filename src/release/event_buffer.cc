#include "vanon/release/event_buffer.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace vanon {

namespace {

constexpr size_t kChunkEvents = 4096;

// Moves `from` into the two lists in (ts, offset) order: the order of the
// state's keys, so a release sees what a scan of state would give it.
void AppendSorted(std::vector<KeyedEvent*>& from, std::vector<BufferedEvent>* events,
                  std::vector<std::pair<int64_t, int64_t>>* keys) {
  std::sort(from.begin(), from.end(), [](const KeyedEvent* a, const KeyedEvent* b) {
    return std::tie(a->ts_ms, a->offset) < std::tie(b->ts_ms, b->offset);
  });
  events->reserve(events->size() + from.size());
  keys->reserve(keys->size() + from.size());
  for (KeyedEvent* e : from) {
    events->push_back(std::move(e->event));
    keys->emplace_back(e->ts_ms, e->offset);
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
  Chunks& chunks = by_epoch_[EpochOf(e.ts_ms)];
  if (chunks.empty() || chunks.back().size() == kChunkEvents) chunks.emplace_back().reserve(kChunkEvents);
  chunks.back().push_back(std::move(e));
  ++size_;
}

TakenEvents EventBuffer::Take(int64_t end_ms) {
  TakenEvents out;
  auto it = by_epoch_.begin();
  while (it != by_epoch_.end() && it->first * length_ms_ < end_ms) {
    Chunks& chunks = it->second;
    if ((it->first + 1) * length_ms_ <= end_ms) {
      for (std::vector<KeyedEvent>& chunk : chunks) {
        size_ -= chunk.size();
        out.push_back(std::move(chunk));
      }
      it = by_epoch_.erase(it);
      continue;
    }
    // The list straddles end_ms: split it event by event.
    Chunks keep;
    std::vector<KeyedEvent>& taken = out.emplace_back();
    for (std::vector<KeyedEvent>& chunk : chunks) {
      for (KeyedEvent& e : chunk) {
        if (e.ts_ms < end_ms) {
          taken.push_back(std::move(e));
          --size_;
        } else {
          if (keep.empty() || keep.back().size() == kChunkEvents) keep.emplace_back().reserve(kChunkEvents);
          keep.back().push_back(std::move(e));
        }
      }
    }
    chunks = std::move(keep);
    ++it;
  }
  return out;
}

EpochEvents ArrangeEpochEvents(TakenEvents taken, int64_t start_ms) {
  std::vector<KeyedEvent*> current, old;
  size_t n = 0;
  for (const std::vector<KeyedEvent>& chunk : taken) n += chunk.size();
  current.reserve(n);
  for (std::vector<KeyedEvent>& chunk : taken) {
    for (KeyedEvent& e : chunk) (e.ts_ms >= start_ms ? current : old).push_back(&e);
  }
  EpochEvents out;
  AppendSorted(current, &out.current, &out.current_keys);
  AppendSorted(old, &out.old, &out.old_keys);
  return out;
}

}  // namespace vanon
