// A partition's clock and progress around one release: what the consuming
// thread knows when a share is submitted (TakeReleaseBase), and the state as
// of the committed release (StateAfterRelease). Computed once per release and
// stored as it is by the local apply batch and by the changelog record
// alike, so a restart on local state and a restore by a new owner start from
// the same state and read the same input again (docs/state.md, "Crash and
// replay").
#ifndef VANON_SRC_SERVICE_STORE_RELEASED_STATE_H_
#define VANON_SRC_SERVICE_STORE_RELEASED_STATE_H_

#include <cstdint>
#include <string>

#include "vanon/release/epoch_clock.h"
#include "vanon/state/partition_progress.h"
#include "vanon/state/release_state.h"

namespace vanon::release {
class EventBuffer;
}  // namespace vanon::release

namespace vanon::state {
class ReleaseWrite;
}  // namespace vanon::state

namespace vanon::service {

// The partition's clock and progress before the release, and the input
// offset a reader of its state resumes at.
struct ReleaseBase {
  release::EpochClock clock;
  state::PartitionProgress progress;
  int64_t resume_offset = 0;
};

// Consuming thread, when a share is submitted (after its events were taken).
ReleaseBase TakeReleaseBase(const release::EpochClock& clock, const state::PartitionProgress& progress,
                            const release::EventBuffer& events);

// The progress to store for a partition that will read its input again from
// base.resume_offset: next_offset rewound to it, replay_until = the position
// at the snapshot (offsets in between are buffered again, not counted or
// routed again).
state::PartitionProgress ReplayProgress(const ReleaseBase& base);

// The partition's clock and progress as of a committed release: the clock
// with the epoch closed; the progress with the release's counters, rewound
// as by ReplayProgress.
struct ReleasedState {
  release::EpochClock clock;
  state::PartitionProgress progress;
};
ReleasedState StateAfterRelease(const ReleaseBase& base, int64_t epoch, uint64_t published_events,
                                uint64_t suppressed_events);

// The release log keeps this many releases per partition (for operators and
// for restoring the last-release metrics); older entries are deleted.
inline constexpr int64_t kReleaseLogLength = 1000;

// What a committed release leaves in state besides its share's changes,
// built once on the release thread before its records are produced: the
// changelog record and the local apply batch carry these same values.
struct ReleaseCommit {
  ReleasedState state;
  state::ReleaseLogEntry entry;  // kCommitted, seed erased
};

// `prepared`: the release's prepared log entry. Applied, the release is
// never computed again: its seed would only let anyone with a copy of state
// regenerate its randomness (counterfeits, group order, DP noise), and its
// epoch offsets are needed only to compute it again; both are erased here.
ReleaseCommit CommitRelease(const ReleaseBase& base, int64_t epoch, uint64_t published_events,
                            uint64_t suppressed_events, const state::ReleaseLogEntry& prepared, std::string summary,
                            int64_t wall_ms);

// Appends the committed release's records to `w`: the closed clock, the
// progress, the log entry, and the deletion of the entry that falls out of
// the log.
void AddCommittedRecords(int32_t partition, int64_t epoch, const ReleaseCommit& c, state::ReleaseWrite* w);

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_STORE_RELEASED_STATE_H_
