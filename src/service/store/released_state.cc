#include "service/store/released_state.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "service/store/record_names.h"
#include "vanon/release/event_buffer.h"
#include "vanon/state/state_store.h"

namespace vanon::service {

ReleaseBase TakeReleaseBase(const release::EpochClock& clock, const state::PartitionProgress& progress,
                            const release::EventBuffer& events) {
  // Every event below the consumer's position is in this release (taken),
  // in an earlier one, changelogged with a waiting tuple, late or rejected;
  // except the buffered events of open epochs, which must be read again.
  int64_t resume = progress.next_offset;
  if (std::optional<int64_t> min = events.MinOffset(); min && (resume < 0 || *min < resume)) resume = *min;
  return ReleaseBase{clock, progress, resume};
}

state::PartitionProgress ReplayProgress(const ReleaseBase& base) {
  state::PartitionProgress progress = base.progress;
  if (base.resume_offset < progress.next_offset) {
    // Whoever loads this reads [resume_offset, next_offset) again: counted here.
    progress.replay_until = std::max(progress.replay_until, progress.next_offset);
    progress.next_offset = base.resume_offset;
  }
  return progress;
}

ReleasedState StateAfterRelease(const ReleaseBase& base, int64_t epoch, uint64_t published_events,
                                uint64_t suppressed_events) {
  ReleasedState out{base.clock, ReplayProgress(base)};
  out.clock.Close(epoch);
  out.progress.released += published_events;
  out.progress.suppressed += suppressed_events;
  out.progress.releases++;
  return out;
}

ReleaseCommit CommitRelease(const ReleaseBase& base, int64_t epoch, uint64_t published_events,
                            uint64_t suppressed_events, const state::ReleaseLogEntry& prepared, std::string summary,
                            int64_t wall_ms) {
  ReleaseCommit c{StateAfterRelease(base, epoch, published_events, suppressed_events), prepared};
  c.entry.status = state::ReleaseStatus::kCommitted;
  c.entry.committed_wall_ms = wall_ms;
  c.entry.seed.fill(0);
  c.entry.epoch_offsets.reset();
  c.entry.summary = std::move(summary);
  return c;
}

void AddCommittedRecords(int32_t partition, int64_t epoch, const ReleaseCommit& c, state::ReleaseWrite* w) {
  w->PutMeta(partition, kClockMeta, c.state.clock.EncodeState());
  w->SetProgress(partition, c.state.progress);
  w->PutRelease(partition, epoch, c.entry);
  w->DeleteRelease(partition, epoch - kReleaseLogLength);
}

}  // namespace vanon::service
