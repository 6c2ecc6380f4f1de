// JobRegistry holds the runner's jobs, at most one per partition from the
// take of an epoch's events to the apply of its share, and each partition's
// independent checker. It takes the events from the partition's task, ahead
// of the close (Precompute) or at it (JobForShare), and gives a precomputed
// job's events back when the job is dropped. Called on the consuming thread;
// its maps are guarded by ReleaseQueues::mu, which the other threads hold
// while they touch a job.
#ifndef VANON_SRC_SERVICE_RELEASE_JOB_REGISTRY_H_
#define VANON_SRC_SERVICE_RELEASE_JOB_REGISTRY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "service/release/release_job.h"
#include "service/release/release_runner.h"
#include "vanon/config.h"
#include "vanon/engine/schema.h"

namespace vanon::service {

class PartitionTask;
class ReleaseMetricsExporter;
class TaskRegistry;

class JobRegistry {
 public:
  // metrics may be null.
  JobRegistry(const config::Config& config, const engine::Schema& schema, ReleaseQueues* queues,
              ReleaseMetricsExporter* metrics)
      : config_(config), schema_(schema), queues_(queues), metrics_(metrics) {}
  JobRegistry(const JobRegistry&) = delete;
  JobRegistry& operator=(const JobRegistry&) = delete;

  // ReleaseRunner::Precompute.
  void Precompute(const std::vector<int32_t>& partitions, const TaskRegistry& tasks);
  // The job of a share that is to be published: its precomputed job when no
  // event joined the epoch since, else a new one (resumed from the release
  // log when an earlier attempt prepared it). `fresh`: still to compute.
  // The job is registered once prepared (AddPrepared).
  JobPtr JobForShare(const ShareRequest& s, const std::shared_ptr<PartitionTask>& task, bool* fresh);
  // Caller holds queues->mu.
  void AddPrepared(const JobPtr& job) { jobs_[job->partition] = job; }

  JobPtr JobOf(int32_t partition) const;
  bool InFlight(int32_t partition) const;
  // The partition's job was applied.
  void Erase(int32_t partition);

  // ReleaseRunner::DropPrecomputed.
  void DropPrecomputed();
  // A revoked partition's state may be replaced before it comes back
  // (StateRestorer): its checker resumes from state again then. Nothing of
  // it may be in flight.
  void ForgetPartitions(const std::vector<int32_t>& partitions);

 private:
  // The partition's checker; only its jobs use it, one at a time.
  PartitionChecker* CheckerOf(int32_t partition);
  // Gives a precomputed job's events back to its partition's buffer and
  // forgets the job. Waits for its computation if one is running.
  void Drop(const JobPtr& job);

  const config::Config& config_;
  const engine::Schema& schema_;
  ReleaseQueues* queues_;
  ReleaseMetricsExporter* metrics_;
  std::map<int32_t, JobPtr> jobs_;  // guarded by queues->mu
  // guarded by queues->mu: per partition, until it is revoked
  std::map<int32_t, std::unique_ptr<PartitionChecker>> checkers_;
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_RELEASE_JOB_REGISTRY_H_
