#include "service/release/share_applier.h"

#include <spdlog/spdlog.h>

#include <memory>
#include <utility>

#include "service/dp/dp_publisher.h"
#include "service/release/release_metrics.h"
#include "service/support/fault_injection.h"
#include "service/task/partition_task.h"
#include "vanon/state/state_store.h"

namespace vanon::service {

namespace {
void LogApplied(const ComputedShare& s, const ReleaseOutcome& o) {
  const engine::ReleaseMetrics& m = s.metrics;
  spdlog::info(
      "release {} partition {}: {} tuples, {} published in {} groups, {} counterfeits, suppressed "
      "{}/{}/{} (conflict/delay/ineligible), {} waiting, {} events out, {:.3f} s{}",
      s.epoch, s.partition, m.tuples, m.published, m.groups, m.counterfeits, m.suppressed_by_reason[0],
      m.suppressed_by_reason[1], m.suppressed_by_reason[2], m.waiting, s.published_events, o.seconds,
      o.recovered     ? " (recovered after a crash)"
      : o.republished ? " (republished after a crash)"
                      : "");
}
}  // namespace

ReleaseOutcome ShareApplier::Apply(ReleaseJob& job) {
  ComputedShare& s = job.share;
  state::ReleaseWrite& w = *job.apply;
  const std::shared_ptr<PartitionTask> task = std::move(job.task);
  task->clock().Close(s.epoch);
  task->progress().released += s.published_events;
  task->progress().suppressed += s.suppressed_events;
  task->progress().releases++;
  // The batch holds the committed release's records (Commit): not the
  // clock and progress in memory, which ingestion has moved on since the
  // snapshot, but state as of this release, what the changelog record
  // carries. A restart reads the input again from its resume offset.
  store_->Commit(w);
  // What the share read in place of the store, moved as the store just was.
  task->release_state().Apply(s.delta);
  s.delta = {};
  job.checker->checker.Accept(std::move(s.verdict));
  for (release::KeyedEvent& e : s.remaining) task->events().Restore(std::move(e));
  s.remaining = {};
  // The consumed events are freed here, on the consuming thread that
  // allocated them, and their list's memory takes the task's next epoch.
  if (s.spent) task->events().Recycle(std::move(*s.spent));
  s.spent.reset();
  FaultPoint("release.after_apply");

  if (dp_) dp_->Committed(s.dp);
  waiting_[s.partition] = s.waiting;
  ReleaseOutcome o;
  o.partition = s.partition;
  o.release = s.epoch;
  o.metrics = s.metrics;
  o.events_published = s.published_events;
  o.events_suppressed = s.suppressed_events;
  o.recovered = job.resumed && s.committed_before;
  o.republished = job.resumed && !s.committed_before;
  o.dp_records = s.dp.records.size();
  o.dp_budget_exhausted = s.dp.budget_exhausted;
  o.seconds = job.seconds;
  o.commit_wall_ms = job.commit_wall_ms;
  if (metrics_) {
    metrics_->Record({s.metrics, s.published_events, s.qi_at_root, o.seconds, job.commit_wall_ms});
    metrics_->SetWaiting(Waiting());
  }
  LogApplied(s, o);
  return o;
}

uint64_t ShareApplier::Waiting() const {
  uint64_t n = 0;
  for (const auto& [p, k] : waiting_) n += k;
  return n;
}

}  // namespace vanon::service
