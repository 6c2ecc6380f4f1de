// A ReleaseJob is one partition's share of one release inside the runner,
// from the take of its events to its apply, and ReleaseQueues the queues
// through which the consuming thread, the computing threads and the release
// thread hand jobs to each other. One mutex guards the queues and the
// guarded fields of every job: the release thread waits on "its next job is
// computed or another job was prepared" in one predicate.
#ifndef VANON_SRC_SERVICE_RELEASE_RELEASE_JOB_H_
#define VANON_SRC_SERVICE_RELEASE_RELEASE_JOB_H_

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "service/share/release_share.h"
#include "service/store/released_state.h"
#include "vanon/release/event_buffer.h"
#include "vanon/state/release_state.h"
#include "vanon/state/state_store.h"  // ReleaseWrite, destroyed with the job

namespace vanon::service {

class PartitionTask;
class ReleaseStateMemory;

using SteadyClock = std::chrono::steady_clock;

// A job is either precomputed (its events taken ahead of the close; nothing
// durable yet, so it may still be dropped) or prepared (its release-log
// entry is durable; it will be published).
struct ReleaseJob {
  int32_t partition = 0;
  int64_t epoch = 0;
  state::ReleaseLogEntry entry;       // guarded by mu: the seed from the start, the rest at prepare
  bool resumed = false;               // prepared by an earlier process
  uint64_t taken_mark = 0;            // EventBuffer::arrivals_behind_take() when taken
  state::OffsetSet epoch_offsets;     // of the taken events of the epoch (EpochOffsetsOf)
  SteadyClock::time_point submitted;  // prepared
  release::TakenEvents events;        // until a computing thread claims the job
  bool prepared = false;              // guarded by mu
  bool claimed = false;               // guarded by mu
  bool computed = false;              // guarded by mu
  std::exception_ptr error;           // guarded by mu
  ComputedShare share;                // written by the computing thread, read once computed
  // share.delta as the share's apply batch (written with it), then the
  // committed release's records (Commit, on the release thread).
  std::unique_ptr<state::ReleaseWrite> apply;
  std::optional<ReleaseBase> base;  // set at prepare
  // Built once, by Commit, before any record of the share is produced: what
  // the changelog record and the local apply store alike.
  std::optional<ReleaseCommit> committed;
  PartitionChecker* checker = nullptr;  // the partition's, set when the job is made
  // The partition's task, held from the take of its events until they are
  // given back (apply or drop), so that a task closed meanwhile stays
  // valid. Consuming thread only; released there, so that no other thread
  // ever destroys a task.
  std::shared_ptr<PartitionTask> task;
  // The task's release state, set with `task`: the computing thread reads
  // it through this pointer (never through `task`, which the consuming
  // thread moves out of a dropped job without the mutex). Valid while the
  // job holds the task (cached_share_state.h says why no lock is needed).
  const ReleaseStateMemory* release_state = nullptr;
  int64_t commit_wall_ms = 0;
  double seconds = 0;
};
using JobPtr = std::shared_ptr<ReleaseJob>;

struct ReleaseQueues {
  std::mutex mu;
  // Computing threads wait here for work, the release thread for its next
  // job or a newly prepared one.
  std::condition_variable work_cv;
  // Apply() waits here for the batch in flight, Drop() for a computation.
  std::condition_variable done_cv;
  std::deque<JobPtr> to_compute;    // guarded by mu: not claimed by a computing thread
  std::deque<JobPtr> to_publish;    // guarded by mu: prepared, in no batch yet
  std::vector<JobPtr> done;         // guarded by mu: committed, waiting for Apply()
  size_t publishing = 0;            // guarded by mu: prepared jobs not yet in `done`
  size_t preparing = 0;             // guarded by mu: SharePreparer::Submit calls under way
  std::exception_ptr error;         // guarded by mu: of the release thread, which has stopped
  bool stopping = false;            // guarded by mu: the release thread stops
  bool computers_stopping = false;  // guarded by mu: the computing threads stop
};

inline int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

inline double SecondsSince(SteadyClock::time_point t) {
  return std::chrono::duration<double>(SteadyClock::now() - t).count();
}

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_RELEASE_RELEASE_JOB_H_
