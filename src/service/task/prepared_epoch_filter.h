// PreparedEpochFilter makes a restart's re-read of the input give a prepared
// share exactly the events of its epoch that the first attempt took.
//
// A share's prepare record stores the input offsets of the events of its
// epoch e that it took from memory (ReleaseLogEntry::epoch_offsets). After a
// crash between prepare and apply, the restart reads the input again with
// the clock rewound to the start of e, so events of e that the first attempt
// found late (its watermark had passed end(e) by idleness, or e waited for
// the previous release's apply) would be on time now, and the recomputed
// share would differ from what may already be published. While e is the
// partition's prepared, open epoch, this filter decides instead of the
// clock for the events of e: on time iff the first attempt took them.
#ifndef VANON_SRC_SERVICE_TASK_PREPARED_EPOCH_FILTER_H_
#define VANON_SRC_SERVICE_TASK_PREPARED_EPOCH_FILTER_H_

#include <cstdint>
#include <optional>
#include <utility>

#include "vanon/release/epoch_clock.h"
#include "vanon/release/event_buffer.h"
#include "vanon/state/release_state.h"

namespace vanon::state {
class StateStore;
}

namespace vanon::service {

class PreparedEpochFilter {
 public:
  PreparedEpochFilter() = default;  // overrides nothing
  PreparedEpochFilter(int64_t epoch, state::OffsetSet offsets) : epoch_(epoch), offsets_(std::move(offsets)) {}

  // The partition's newest release-log entry, when it is prepared and
  // records its epoch's offsets (an entry of the older format does not: the
  // filter then overrides nothing, as before).
  static PreparedEpochFilter Load(const state::StateStore& store, int32_t partition);

  // The arrival of an accepted event, given what the clock (after Observe)
  // said. Only events of the prepared epoch while it is still open change.
  release::Arrival Classify(const release::EpochClock& clock, int64_t ts_ms, int64_t offset,
                            release::Arrival by_clock) const;

  bool active() const { return epoch_.has_value(); }

 private:
  std::optional<int64_t> epoch_;
  state::OffsetSet offsets_;
};

// The offsets of the taken events of the epoch that starts at start_ms (the
// events of older epochs in `taken` are left out: they come from state).
state::OffsetSet EpochOffsetsOf(const release::TakenEvents& taken, int64_t start_ms);

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_TASK_PREPARED_EPOCH_FILTER_H_
