// A PartitionTask is what one input partition owns while this instance has
// it: its progress counters, its epoch clock, the events it buffers, the
// signatures and waiting tuples its shares read (ReleaseStateMemory) and,
// after a crash between prepare and apply, its prepared-epoch filter. All of it is
// loaded from state when the task is created (on assignment, after a restore)
// and lives in memory only until the task is destroyed (on revocation). Its
// view of the release log reads state when asked.
// Ingestion moves it per batch; the release runner takes epochs from it and
// applies releases to it. Both run on the consuming thread, which is the only
// one that touches a task, but for the computing thread that reads the
// release state of the partition's one share in flight (cached_share_state.h).
#ifndef VANON_SRC_SERVICE_TASK_PARTITION_TASK_H_
#define VANON_SRC_SERVICE_TASK_PARTITION_TASK_H_

#include <cstdint>
#include <optional>

#include "service/store/release_state_memory.h"
#include "service/task/prepared_epoch_filter.h"
#include "service/task/release_log_view.h"
#include "vanon/config.h"
#include "vanon/release/epoch_clock.h"
#include "vanon/release/event_buffer.h"
#include "vanon/state/partition_progress.h"

namespace vanon::release {
class PayloadTransformer;
}  // namespace vanon::release

namespace vanon::state {
class StateStore;
}  // namespace vanon::state

namespace vanon::service {

// A partition's epoch clock as state holds it (as of its last release),
// rewound to the start of its first open epoch (EpochClock::RewindToFirstOpen):
// the input is read again from the resume offset, and the events of open
// epochs must find their epochs open. For a partition loaded from local
// state and for one restored from the changelog alike.
release::EpochClock StoredClockForReplay(const state::StateStore& store, const config::EpochConfig& config,
                                         int32_t partition);

class PartitionTask {
 public:
  // Reads the partition's progress, clock, prepared-epoch filter, release
  // state and buffered events from store, which must outlive the task (its release
  // log is read from it later). Events stored by a version that transformed
  // payloads at release are transformed with payload.
  PartitionTask(const state::StateStore& store, const config::EpochConfig& epoch, int32_t partition,
                release::PayloadTransformer* payload);
  PartitionTask(const PartitionTask&) = delete;
  PartitionTask& operator=(const PartitionTask&) = delete;

  int32_t partition() const { return partition_; }
  state::PartitionProgress& progress() { return progress_; }
  const state::PartitionProgress& progress() const { return progress_; }
  release::EpochClock& clock() { return clock_; }
  release::EventBuffer& events() { return events_; }
  // Moved by the apply of each of the partition's shares, as state is.
  ReleaseStateMemory& release_state() { return release_state_; }
  const ReleaseStateMemory& release_state() const { return release_state_; }
  // Null unless a prepared share of an open epoch waits for its events.
  const PreparedEpochFilter* filter() const { return filter_ ? &*filter_ : nullptr; }
  const ReleaseLogView& release_log() const { return release_log_; }

 private:
  const int32_t partition_;
  state::PartitionProgress progress_;
  release::EpochClock clock_;
  std::optional<PreparedEpochFilter> filter_;
  release::EventBuffer events_;
  ReleaseStateMemory release_state_;
  ReleaseLogView release_log_;
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_TASK_PARTITION_TASK_H_
