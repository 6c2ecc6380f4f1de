#include "vanon/release/event_buffer.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace vanon::release {

namespace {

// (list, index) of one event among taken lists.
using EventRef = std::pair<EpochList*, uint32_t>;

const std::pair<int64_t, int64_t>& KeyOf(const EventRef& r) { return r.first->keys[r.second]; }

// Moves the referenced events into the two lists in key order.
void AppendInKeyOrder(std::vector<EventRef>& from, std::vector<ingest::BufferedEvent>* events,
                      std::vector<std::pair<int64_t, int64_t>>* keys) {
  std::sort(from.begin(), from.end(), [](const EventRef& a, const EventRef& b) { return KeyOf(a) < KeyOf(b); });
  events->reserve(events->size() + from.size());
  keys->reserve(keys->size() + from.size());
  for (const EventRef& r : from) {
    events->push_back(std::move(r.first->events[r.second]));
    keys->push_back(KeyOf(r));
  }
}

// Puts a list in key order where it is. A partition's events arrive in
// offset order but not quite in time order (producers' clocks and batches
// differ), so an epoch's list is rarely sorted already. Moving its events
// into a new vector instead cost ten megabytes of fresh pages per partition
// and epoch, and freed the list whose capacity the next epoch was to reuse
// (EventBuffer::Recycle): the recycled copy was too small to be taken.
void SortInPlace(EpochList* l) {
  const std::vector<std::pair<int64_t, int64_t>>& keys = l->keys;
  std::vector<uint32_t> from(keys.size());  // position i takes the event at from[i]
  for (uint32_t i = 0; i < from.size(); ++i) from[i] = i;
  std::sort(from.begin(), from.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
  // Cycle by cycle; a position done is marked from[i] == i.
  for (uint32_t start = 0; start < from.size(); ++start) {
    if (from[start] == start) continue;
    ingest::BufferedEvent event = std::move(l->events[start]);
    const std::pair<int64_t, int64_t> key = l->keys[start];
    uint32_t at = start;
    while (from[at] != start) {
      const uint32_t next = from[at];
      l->events[at] = std::move(l->events[next]);
      l->keys[at] = l->keys[next];
      from[at] = at;
      at = next;
    }
    l->events[at] = std::move(event);
    l->keys[at] = key;
    from[at] = at;
  }
}

// By reference: each event was moved three times on its way into a list.
void Append(EpochList* list, KeyedEvent&& e) {
  list->keys.emplace_back(e.ts_ms, e.offset);
  list->events.push_back(std::move(e.event));
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

void EventBuffer::Add(KeyedEvent&& e) {
  if (e.ts_ms < taken_end_) ++arrivals_behind_take_;
  Restore(std::move(e));
}

void EventBuffer::Restore(KeyedEvent&& e) {
  const int64_t epoch = EpochOf(e.ts_ms);
  if (last_.list == nullptr || epoch != last_.epoch) {  // most events join the list the last one joined
    auto [it, fresh] = by_epoch_.try_emplace(epoch);
    if (fresh) {
      // Before any list was taken (the first epochs after a start) there is
      // nothing to go by: start at kColdListEvents rather than at one event,
      // whose doublings moved and faulted in every event again (a fifth of
      // ingestion's CPU in bench_ingest_e2e, perf). Untouched capacity is
      // address space, not memory.
      //
      // A spare that holds the largest epoch seen is taken as it is: asking
      // it for the quarter more a fresh list reserves would replace its
      // pages with fresh ones, and the largest epoch creeps up now and then
      // under a steady load, so the spare was mostly thrown away.
      const size_t n = expected_ > 0 ? expected_ + expected_ / 4 : kColdListEvents;
      const size_t enough = expected_ > 0 ? expected_ : n;
      if (spare_.events.capacity() >= enough && spare_.keys.capacity() >= enough) {
        it->second = std::move(spare_);
      } else {
        it->second.events.reserve(n);
        it->second.keys.reserve(n);
      }
      spare_ = {};
    }
    last_.epoch = epoch;
    last_.list = &it->second;
  }
  Append(last_.list, std::move(e));
  ++size_;
}

TakenEvents EventBuffer::Take(int64_t end_ms) {
  last_.list = nullptr;  // lists are moved out or split below
  taken_end_ = std::max(taken_end_, end_ms);
  TakenEvents out;
  auto it = by_epoch_.begin();
  while (it != by_epoch_.end() && it->first * length_ms_ < end_ms) {
    EpochList& list = it->second;
    if ((it->first + 1) * length_ms_ <= end_ms) {
      size_ -= list.events.size();
      expected_ = std::max(expected_, list.events.size());
      out.push_back(std::move(list));
      it = by_epoch_.erase(it);
      continue;
    }
    // The list straddles end_ms: split it event by event.
    EpochList keep, taken;
    for (size_t i = 0; i < list.events.size(); ++i) {
      KeyedEvent e{list.keys[i].first, list.keys[i].second, std::move(list.events[i])};
      Append(e.ts_ms < end_ms ? &taken : &keep, std::move(e));
    }
    size_ -= taken.events.size();
    out.push_back(std::move(taken));
    list = std::move(keep);
    ++it;
  }
  return out;
}

void EventBuffer::Recycle(EpochEvents spent) {
  const bool current = spent.current.capacity() >= spent.old.capacity();
  std::vector<ingest::BufferedEvent>& events = current ? spent.current : spent.old;
  std::vector<std::pair<int64_t, int64_t>>& keys = current ? spent.current_keys : spent.old_keys;
  if (events.capacity() <= spare_.events.capacity()) return;
  events.clear();
  keys.clear();
  spare_.events = std::move(events);
  spare_.keys = std::move(keys);
}

EpochEvents ArrangeEpochEvents(TakenEvents taken, int64_t start_ms) {
  EpochEvents out;
  // The fast case: exactly one list holds current events, and it holds
  // nothing else. It is sorted where it is and moved whole.
  EpochList* whole = nullptr;
  size_t lists_with_current = 0;
  for (EpochList& l : taken) {
    const size_t n = static_cast<size_t>(
        std::count_if(l.keys.begin(), l.keys.end(), [&](const auto& k) { return k.first >= start_ms; }));
    if (n == 0) continue;
    ++lists_with_current;
    whole = n == l.keys.size() ? &l : nullptr;
  }
  if (lists_with_current != 1) whole = nullptr;
  if (whole != nullptr && !std::is_sorted(whole->keys.begin(), whole->keys.end())) SortInPlace(whole);

  std::vector<EventRef> current, old;
  for (EpochList& l : taken) {
    if (&l == whole) {
      out.current = std::move(l.events);
      out.current_keys = std::move(l.keys);
      continue;
    }
    for (uint32_t i = 0; i < l.keys.size(); ++i) (l.keys[i].first >= start_ms ? current : old).emplace_back(&l, i);
  }
  AppendInKeyOrder(current, &out.current, &out.current_keys);
  AppendInKeyOrder(old, &out.old, &out.old_keys);
  return out;
}

}  // namespace vanon::release

namespace vanon::release {

std::optional<int64_t> EventBuffer::MinOffset() const {
  std::optional<int64_t> min;
  for (const auto& [epoch, list] : by_epoch_) {
    for (const auto& [ts, offset] : list.keys) {
      if (!min || offset < *min) min = offset;
    }
  }
  return min;
}

}  // namespace vanon::release
