// ComputePool runs the computing threads, one per hardware thread
// (base::HardwareThreads): each takes the oldest job of the queue (in the
// order the jobs' events were taken, precomputed or prepared alike) and
// computes its share (ComputeShare) and the share's apply batch, outside
// the lock. Precomputed jobs are usually computed during the allowed
// lateness, so that at the close only the prepare and the transaction
// remain.
#ifndef VANON_SRC_SERVICE_RELEASE_COMPUTE_POOL_H_
#define VANON_SRC_SERVICE_RELEASE_COMPUTE_POOL_H_

#include <thread>
#include <vector>

#include "service/release/release_job.h"
#include "service/share/release_share.h"

namespace vanon::state {
class StateStore;
}  // namespace vanon::state

namespace vanon::service {

class ReleaseLogReader;
class ReleaseStateMemory;

class ComputePool {
 public:
  // Starts the threads. ctx, store, log and queues must outlive the pool.
  ComputePool(const ShareContext& ctx, state::StateStore* store, const ReleaseLogReader& log, ReleaseQueues* queues);
  ~ComputePool() { Stop(); }
  ComputePool(const ComputePool&) = delete;
  ComputePool& operator=(const ComputePool&) = delete;

  // Stops the threads once the queue is empty: after the release thread,
  // whose batch may still wait for jobs.
  void Stop();

  // Puts a computed job back at the front of the queue, with the events its
  // share holds, to be computed anew. Caller holds queues->mu.
  void Recompute(const JobPtr& job);

 private:
  void Loop();
  void Compute(ReleaseJob& job, const state::ReleaseLogEntry& entry, release::TakenEvents events,
               const ReleaseStateMemory* release_state, ComputedShare* share,
               std::unique_ptr<state::ReleaseWrite>* apply) const;

  const ShareContext& ctx_;
  state::StateStore* store_;
  const ReleaseLogReader& log_;
  ReleaseQueues* queues_;
  std::vector<std::thread> threads_;
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_RELEASE_COMPUTE_POOL_H_
