// EventBuffer holds one input partition's buffered events in memory, kept
// by the consuming thread; releases take their epoch from it.
//
// The events of open epochs are only here: their durable copy is the input
// topic, read again from the stored resume offset after a restart
// (docs/state.md, "Crash and replay"). The service fills a partition's
// buffer from state when the partition is assigned (the events that waiting
// tuples own, and those a store written by an older version still holds),
// adds each event once its poll batch is processed, hands an epoch's events
// to the release with Take(), and adds back the events the release's apply
// batch keeps (and stores). ArrangeEpochEvents puts a release's events in
// state key order (ts, offset), as a scan of state would return them.
#ifndef VANON_RELEASE_EVENT_BUFFER_H_
#define VANON_RELEASE_EVENT_BUFFER_H_

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "vanon/ingest/buffered_event.h"

namespace vanon::release {

// An event with its state key within the partition.
struct KeyedEvent {
  int64_t ts_ms = 0;
  int64_t offset = 0;
  ingest::BufferedEvent event;
};

// The events a release share consumes: its epoch's, and older ones (which
// only waiting tuples still own), each list in state key order (ts, offset).
struct EpochEvents {
  std::vector<ingest::BufferedEvent> current;
  std::vector<std::pair<int64_t, int64_t>> current_keys;  // (ts, offset)
  std::vector<ingest::BufferedEvent> old;
  std::vector<std::pair<int64_t, int64_t>> old_keys;
};

// One epoch's events in arrival order, with their keys.
struct EpochList {
  std::vector<ingest::BufferedEvent> events;
  std::vector<std::pair<int64_t, int64_t>> keys;  // (ts, offset), one per event
};

// Events taken from a buffer: whole epoch lists, so that taking is cheap for
// the consuming thread; arranging them is left to the release's thread.
using TakenEvents = std::vector<EpochList>;

// Splits taken events at start_ms into `current` and `old`, each in state
// key order. When the epoch's own list holds all the current events and
// nothing else (the usual case), it is sorted in place and moved whole, so
// that its memory goes on to the next epoch (Recycle) instead of a copy's.
EpochEvents ArrangeEpochEvents(TakenEvents taken, int64_t start_ms);

class EventBuffer {
 public:
  // epoch_length_ms > 0: events are kept in per-epoch lists.
  explicit EventBuffer(int64_t epoch_length_ms);

  // A newly stored event.
  void Add(KeyedEvent&& e);
  // An event that was taken and is given back (kept by a release, or taken
  // for a release computed ahead of its close and then dropped): not an
  // arrival, so not counted by arrivals_behind_take().
  void Restore(KeyedEvent&& e);

  // Moves out every event with ts < end_ms. When end_ms is an epoch
  // boundary (as a release's is) this moves whole lists, not events.
  TakenEvents Take(int64_t end_ms);

  // Takes back the memory of events a release consumed, once it is applied,
  // on the thread that frees them: the events are destroyed and the largest
  // emptied list is kept for the next epoch's. An epoch list of a busy
  // partition is tens of megabytes; freed, it goes back to the system, and
  // the next epoch's list faulted in the same amount of fresh, zeroed pages
  // while ingestion filled it.
  void Recycle(EpochEvents spent);

  size_t size() const { return size_; }
  // The smallest input offset among the buffered events, or nullopt when
  // empty. Scans every event: called once per release share.
  std::optional<int64_t> MinOffset() const;

  // Events added so far with a time below the end of some earlier Take().
  // A release computed ahead of its close from a Take() is still exact only
  // if this count has not moved since.
  uint64_t arrivals_behind_take() const { return arrivals_behind_take_; }

 private:
  int64_t EpochOf(int64_t ts_ms) const;

  int64_t length_ms_;
  std::map<int64_t, EpochList> by_epoch_;
  size_t size_ = 0;
  int64_t taken_end_ = INT64_MIN;  // the largest end_ms taken
  uint64_t arrivals_behind_take_ = 0;
  // The largest epoch list taken so far: new lists reserve a little more,
  // so that they rarely grow (which would move every event again).
  size_t expected_ = 0;
  // What a new list reserves while expected_ is 0: 32,768 events, about
  // 6 MB of address space, faulted in only as the list fills.
  static constexpr size_t kColdListEvents = 1 << 15;
  // An emptied list from Recycle(), for the next epoch's list.
  EpochList spare_;
  // The list the last event joined (null after a Take). A copy or a moved
  // buffer starts without it: it points into this buffer's map.
  struct LastList {
    int64_t epoch = 0;
    EpochList* list = nullptr;
    LastList() = default;
    LastList(const LastList&) {}
    LastList& operator=(const LastList&) {
      list = nullptr;
      return *this;
    }
  };
  LastList last_;
};

}  // namespace vanon::release

#endif  // VANON_RELEASE_EVENT_BUFFER_H_
