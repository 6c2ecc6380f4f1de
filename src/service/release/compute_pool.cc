#include "service/release/compute_pool.h"

#include <pthread.h>
#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <mutex>
#include <optional>
#include <utility>

#include "base/machine.h"
#include "service/release/release_log_reader.h"
#include "service/store/cached_share_state.h"
#include "service/store/release_state_memory.h"
#include "service/store/store_share_state.h"
#include "vanon/release/epoch_clock.h"
#include "vanon/state/state_store.h"

namespace vanon::service {

namespace {
// The consuming thread and librdkafka share the same cores as the computing
// threads, so more threads than cores would only queue; and below the
// consuming thread, because when both want the CPU ingestion must keep up,
// or epochs close late and the next release starts behind.
constexpr int kComputeNice = 5;
}  // namespace

ComputePool::ComputePool(const ShareContext& ctx, state::StateStore* store, const ReleaseLogReader& log,
                         ReleaseQueues* queues)
    : ctx_(ctx), store_(store), log_(log), queues_(queues) {
  for (int k = 0; k < base::HardwareThreads(); ++k) {
    threads_.emplace_back([this] {
      pthread_setname_np(pthread_self(), "vanon-compute");
      setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kComputeNice);
      Loop();
    });
  }
}

void ComputePool::Stop() {
  {
    std::lock_guard<std::mutex> l(queues_->mu);
    queues_->computers_stopping = true;
  }
  queues_->work_cv.notify_all();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void ComputePool::Recompute(const JobPtr& job) {
  release::EventBuffer events(ctx_.config->privacy.epoch.length_seconds * 1000);
  ReturnEvents(&job->share, &events);
  job->events = events.Take(release::EpochClock(ctx_.config->privacy.epoch).EpochEnd(job->epoch));
  job->share = ComputedShare{};
  job->apply.reset();
  job->committed.reset();
  job->computed = false;
  job->claimed = false;
  job->error = nullptr;
  queues_->to_compute.push_front(job);
  queues_->work_cv.notify_all();
}

// A resumed job first asks Kafka whether its earlier attempt committed:
// then its share publishes nothing, and only its state is applied.
// The share reads its partition's signatures and waiting tuples from the
// task's memory (CachedShareState), and keeps their changes for the apply
// to move that memory as it commits them to state.
void ComputePool::Compute(ReleaseJob& job, const state::ReleaseLogEntry& entry, release::TakenEvents events,
                          const ReleaseStateMemory* release_state, ComputedShare* share,
                          std::unique_ptr<state::ReleaseWrite>* apply) const {
  bool committed_before = false;
  if (job.resumed) {
    committed_before = log_.SummaryCommitted(job.partition, job.epoch, entry);
    spdlog::info("release {} partition {}: resuming a prepared release; {}", job.epoch, job.partition,
                 committed_before ? "it was committed, applying its state" : "it was not committed, republishing");
  }
  ShareContext ctx = ctx_;
  std::optional<CachedShareState> cached;
  if (release_state) ctx.state = &cached.emplace(ctx_.state, release_state, job.partition);
  *share = ComputeShare(ctx, job.partition, job.epoch, entry.seed, committed_before, std::move(events), job.checker);
  *apply = std::make_unique<state::ReleaseWrite>(*store_);
  AddShareDelta(share->delta, apply->get());
  share->delta = ReleaseStateOps(std::move(share->delta));
}

void ComputePool::Loop() {
  std::unique_lock<std::mutex> l(queues_->mu);
  for (;;) {
    queues_->work_cv.wait(l, [&] { return queues_->computers_stopping || !queues_->to_compute.empty(); });
    if (queues_->to_compute.empty()) return;  // stopping
    JobPtr job = queues_->to_compute.front();
    queues_->to_compute.pop_front();
    job->claimed = true;
    const state::ReleaseLogEntry entry = job->entry;
    release::TakenEvents events = std::move(job->events);
    const ReleaseStateMemory* release_state = job->release_state;
    l.unlock();
    std::exception_ptr err;
    ComputedShare share;
    std::unique_ptr<state::ReleaseWrite> apply;
    try {
      Compute(*job, entry, std::move(events), release_state, &share, &apply);
    } catch (...) {
      err = std::current_exception();
    }
    l.lock();
    job->share = std::move(share);
    job->apply = std::move(apply);
    job->error = err;
    job->computed = true;
    queues_->work_cv.notify_all();  // the release thread waits for its batch's jobs here
    queues_->done_cv.notify_all();  // JobRegistry::Drop waits here
  }
}

}  // namespace vanon::service
