#include "service/release/share_preparer.h"

#include <spdlog/spdlog.h>

#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "service/collector/changelog_writer.h"
#include "service/release/job_registry.h"
#include "service/release/release_log_reader.h"
#include "service/release/share_collector.h"
#include "service/store/released_state.h"
#include "service/support/fault_injection.h"
#include "service/task/partition_task.h"
#include "service/task/task_registry.h"
#include "vanon/kafka/transactional_producer.h"
#include "vanon/state/state_store.h"

namespace vanon::service {

// A resumed share must take the events of its epoch that its first attempt
// took (PreparedEpochFilter sees to it while the input is still there). If
// it does not and the first attempt committed, its recomputation would
// store a state that contradicts the published release: fail closed. If
// the first attempt did not commit, nobody saw it: the recomputation is
// published, and the prepare record now records its events.
void SharePreparer::CheckResumedEvents(const ShareRequest& s, const ReleaseJob& job, state::ReleaseLogEntry* entry,
                                       state::ReleaseWrite* w) {
  if (!entry->epoch_offsets || *entry->epoch_offsets == job.epoch_offsets) return;
  if (log_.SummaryCommitted(s.partition, s.epoch, *entry)) {
    throw std::runtime_error(
        "release " + std::to_string(s.epoch) + " partition " + std::to_string(s.partition) +
        ": committed before the restart, but the input read again no longer holds the events of the epoch that "
        "it published (" +
        std::to_string(entry->epoch_offsets->size()) + " recorded, " + std::to_string(job.epoch_offsets.size()) +
        " taken now; part of the input deleted by retention?); not applying a state "
        "that differs from the published release (docs/release.md, \"After a crash\")");
  }
  spdlog::warn(
      "release {} partition {}: prepared before the restart and not committed; the input read again holds other "
      "events of the epoch ({} recorded, {} now), publishing the recomputation",
      s.epoch, s.partition, entry->epoch_offsets->size(), job.epoch_offsets.size());
  entry->epoch_offsets = job.epoch_offsets;
  w->PutRelease(s.partition, s.epoch, *entry);
}

// The prepare record of a share not prepared before: its seed, and where
// its summary will be read back (`end_offsets`: of the releases partitions).
void SharePreparer::PutPrepared(const ShareRequest& s, const std::map<int32_t, int64_t>& end_offsets,
                                state::ReleaseLogEntry* entry, state::ReleaseWrite* w) {
  entry->status = state::ReleaseStatus::kPrepared;
  entry->readback_partition = collector_.ReleasesPartition(s.partition);
  entry->readback_offset = end_offsets.at(entry->readback_partition);
  entry->prepared_wall_ms = WallMs();
  w->PutRelease(s.partition, s.epoch, *entry);
}

void SharePreparer::Submit(const std::vector<ShareRequest>& shares, const TaskRegistry& tasks) {
  if (shares.empty()) return;
  // While this runs, the release thread keeps its open batch open for these
  // shares (TransactionLoop::NextComputed), whether they arrive or not.
  struct Preparing {
    explicit Preparing(ReleaseQueues* q) : queues(q) {
      std::lock_guard<std::mutex> l(queues->mu);
      ++queues->preparing;
    }
    ~Preparing() {
      {
        std::lock_guard<std::mutex> l(queues->mu);
        --queues->preparing;
      }
      queues->work_cv.notify_all();
    }
    ReleaseQueues* queues;
  } preparing(queues_);
  const auto now = SteadyClock::now();
  state::ReleaseWrite w(*store_);
  // Asked for all at once: one round trip for the lot instead of one per
  // partition, each slow while the previous batch still loads the broker
  // (0.1-0.4 s for ten partitions in the release benchmark).
  std::optional<std::map<int32_t, int64_t>> end_offsets;
  struct Ready {
    JobPtr job;
    state::ReleaseLogEntry entry;
    bool fresh;  // not precomputed: still to compute
  };
  std::vector<Ready> ready;
  for (const ShareRequest& s : shares) {
    const std::shared_ptr<PartitionTask> task = tasks.Get(s.partition);
    bool fresh = false;
    JobPtr job = jobs_->JobForShare(s, task, &fresh);
    state::ReleaseLogEntry entry = job->entry;  // only this thread writes it
    if (job->resumed) {
      CheckResumedEvents(s, *job, &entry, &w);
    } else {
      entry.epoch_offsets = job->epoch_offsets;
      if (!end_offsets) {
        std::set<int32_t> readback;
        for (const ShareRequest& r : shares) readback.insert(collector_.ReleasesPartition(r.partition));
        end_offsets = producer_->EndOffsets(config_.kafka.topics.releases, readback);
      }
      PutPrepared(s, *end_offsets, &entry, &w);
    }
    job->submitted = now;
    job->base = TakeReleaseBase(task->clock(), task->progress(), task->events());
    ready.push_back({std::move(job), std::move(entry), fresh});
  }
  // Synced: the transaction that follows publishes what this seed yields,
  // and a prepare record lost to a machine crash after the commit would
  // make the restart publish a second, different release.
  store_->Commit(w, state::Durability::kMachineCrash);
  // With the changelog, the seeds also go to Kafka before any record of
  // these shares can: a partition that moves before its release commits
  // is recomputed by its next owner with the same seed.
  if (changelog_) {
    std::vector<ChangelogWriter::Prepared> prepared;
    for (const Ready& r : ready) prepared.push_back({r.job->partition, r.job->epoch, r.entry});
    changelog_->PublishPrepared(prepared);
  }
  FaultPoint("release.after_prepare");
  {
    std::lock_guard<std::mutex> l(queues_->mu);
    for (Ready& r : ready) {
      r.job->entry = std::move(r.entry);
      r.job->prepared = true;
      if (r.fresh) queues_->to_compute.push_back(r.job);
      jobs_->AddPrepared(r.job);
      queues_->to_publish.push_back(std::move(r.job));
      ++queues_->publishing;
    }
  }
  queues_->work_cv.notify_all();  // the computing threads, and the release thread
}

}  // namespace vanon::service
