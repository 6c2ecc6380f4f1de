#include "service/release/job_registry.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "service/release/release_metrics.h"
#include "service/task/partition_task.h"
#include "service/task/prepared_epoch_filter.h"
#include "service/task/task_registry.h"
#include "vanon/release/epoch_clock.h"
#include "vanon/release/seed_stream.h"

namespace vanon::service {

PartitionChecker* JobRegistry::CheckerOf(int32_t partition) {
  std::lock_guard<std::mutex> l(queues_->mu);
  std::unique_ptr<PartitionChecker>& c = checkers_[partition];
  if (!c) c = std::make_unique<PartitionChecker>(schema_);
  return c.get();
}

void JobRegistry::ForgetPartitions(const std::vector<int32_t>& partitions) {
  std::lock_guard<std::mutex> l(queues_->mu);
  for (int32_t p : partitions) checkers_.erase(p);
}

JobPtr JobRegistry::JobOf(int32_t partition) const {
  std::lock_guard<std::mutex> l(queues_->mu);
  auto it = jobs_.find(partition);
  return it == jobs_.end() ? nullptr : it->second;
}

bool JobRegistry::InFlight(int32_t partition) const {
  std::lock_guard<std::mutex> l(queues_->mu);
  auto it = jobs_.find(partition);
  return it != jobs_.end() && it->second->prepared;
}

void JobRegistry::Erase(int32_t partition) {
  std::lock_guard<std::mutex> l(queues_->mu);
  jobs_.erase(partition);
}

// Reads no state that can change before the close: the partition has
// nothing in flight, and only its own apply writes its release state.
void JobRegistry::Precompute(const std::vector<int32_t>& partitions, const TaskRegistry& tasks) {
  if (!config_.privacy.epoch.precompute) return;
  for (int32_t p : partitions) {
    if (JobOf(p)) continue;
    std::shared_ptr<PartitionTask> task = tasks.Get(p);
    release::EpochClock& clock = task->clock();
    const std::optional<int64_t> epoch = clock.NextPrecomputable();
    if (!epoch) continue;
    if (task->release_log().Find(*epoch)) continue;  // prepared before a restart: resumed at the close
    auto job = std::make_shared<ReleaseJob>();
    job->partition = p;
    job->epoch = *epoch;
    job->entry.seed = release::NewReleaseSeed();
    job->checker = CheckerOf(p);
    job->events = task->events().Take(clock.EpochEnd(*epoch));
    job->epoch_offsets = EpochOffsetsOf(job->events, clock.EpochStart(*epoch));
    job->taken_mark = task->events().arrivals_behind_take();
    job->release_state = &task->release_state();
    job->task = std::move(task);
    {
      std::lock_guard<std::mutex> l(queues_->mu);
      jobs_[p] = job;
      queues_->to_compute.push_back(job);
    }
    queues_->work_cv.notify_all();
  }
}

void JobRegistry::Drop(const JobPtr& job) {
  std::shared_ptr<PartitionTask> task = std::move(job->task);
  release::EventBuffer* events = &task->events();
  std::unique_lock<std::mutex> l(queues_->mu);
  if (!job->claimed) {
    std::deque<JobPtr>& queue = queues_->to_compute;
    queue.erase(std::find(queue.begin(), queue.end(), job));
    jobs_.erase(job->partition);
    l.unlock();
    for (release::EpochList& list : job->events) {
      for (size_t i = 0; i < list.events.size(); ++i) {
        events->Restore({list.keys[i].first, list.keys[i].second, std::move(list.events[i])});
      }
    }
    return;
  }
  queues_->done_cv.wait(l, [&] { return job->computed; });
  jobs_.erase(job->partition);
  // A failed computation consumed the events: state still has them, and a
  // restart reads them back.
  if (job->error) std::rethrow_exception(job->error);
  l.unlock();
  ReturnEvents(&job->share, events);
}

void JobRegistry::DropPrecomputed() {
  std::vector<JobPtr> precomputed;
  {
    std::lock_guard<std::mutex> l(queues_->mu);
    for (const auto& [p, job] : jobs_) {
      if (!job->prepared) precomputed.push_back(job);
    }
  }
  for (const JobPtr& job : precomputed) Drop(job);
}

JobPtr JobRegistry::JobForShare(const ShareRequest& s, const std::shared_ptr<PartitionTask>& task, bool* fresh) {
  JobPtr job = JobOf(s.partition);
  if (job && job->prepared) {
    throw std::logic_error("partition " + std::to_string(s.partition) + " already has a share in flight");
  }
  if (job) {
    // Exact only if no event joined the epoch after the take.
    const bool used = job->epoch == s.epoch && task->events().arrivals_behind_take() == job->taken_mark;
    if (metrics_) metrics_->Precomputed(used);
    if (!used) {
      spdlog::info(
          "release {} partition {}: an event of the epoch arrived after its share was computed; computing it again",
          s.epoch, s.partition);
      Drop(job);
      job = nullptr;
    }
  }
  std::optional<state::ReleaseLogEntry> stored = task->release_log().Find(s.epoch);
  if (stored && stored->status == state::ReleaseStatus::kCommitted) {
    // Apply wrote the log entry and closed the clock in one batch, so
    // this means the clock in memory is behind state: never expected.
    throw std::runtime_error("release " + std::to_string(s.epoch) + " of partition " + std::to_string(s.partition) +
                             " is committed but its epoch is still open");
  }
  *fresh = !job;
  if (!*fresh) return job;
  job = std::make_shared<ReleaseJob>();
  job->partition = s.partition;
  job->epoch = s.epoch;
  job->checker = CheckerOf(s.partition);
  if (stored) {
    job->entry = *stored;
    job->resumed = true;
  } else {
    job->entry.seed = release::NewReleaseSeed();
  }
  job->events = task->events().Take(task->clock().EpochEnd(s.epoch));
  job->epoch_offsets = EpochOffsetsOf(job->events, task->clock().EpochStart(s.epoch));
  job->release_state = &task->release_state();
  job->task = task;
  return job;
}

}  // namespace vanon::service
