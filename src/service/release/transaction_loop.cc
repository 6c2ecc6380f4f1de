#include "service/release/transaction_loop.h"

#include <openssl/rand.h>
#include <pthread.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "base/hex.h"
#include "service/collector/changelog_writer.h"
#include "service/release/compute_pool.h"
#include "service/release/release_metrics.h"
#include "service/release/share_collector.h"
#include "service/support/fault_injection.h"
#include "vanon/kafka/transactional_producer.h"
#include "vanon/state/state_store.h"

namespace vanon::service {

namespace {

constexpr int kCommitAttempts = 3;
// A batch whose share fails ReleaseChecker is aborted and tried again (the
// share computed anew) this many times, waiting 1, 2, 4, ... s in between,
// before the runner gives up (fatal: the service exits, and its restart
// resumes the prepared release). Meanwhile ingestion goes on.
constexpr int kCheckAttempts = 6;
// A batch stops taking in queued shares at this size, so its records (held
// until commit) stay bounded.
constexpr size_t kMaxBatchShares = 64;
// How long an open batch whose jobs are all produced waits for shares being
// prepared (see NextComputed).
constexpr std::chrono::milliseconds kMaxPreparingWait{500};
constexpr size_t kNone = SIZE_MAX;

// Marks a transaction attempt (header only, never part of a record's value):
// lets an operator or a test tell two attempts at the same release apart.
std::string AttemptId() {
  unsigned char b[8];
  if (RAND_bytes(b, sizeof b) != 1) throw std::runtime_error("OpenSSL RAND_bytes failed");
  return base::HexEncode(std::string_view(reinterpret_cast<const char*>(b), sizeof b));
}

}  // namespace

// The jobs of one transaction. Jobs prepared while it is open (not yet
// committing) join it, so a partition whose epoch closed a moment after the
// others does not wait for a whole batch to commit.
struct TransactionLoop::Batch {
  std::vector<JobPtr> jobs;  // guarded by mu; grows at the back only
  bool sealed = false;       // guarded by mu: no more jobs
  // Of the attempt that committed, for the batch's log line: what the
  // changelog added to the transaction, and the seconds spent sending the
  // input offsets and committing (the commit flushes every record first).
  size_t changelog_records = 0;
  double offsets_s = 0;
  double commit_s = 0;
  // Spent waiting for shares still being computed (every attempt's), and
  // for shares being prepared to join.
  double computing_wait_s = 0;
  double preparing_wait_s = 0;
};

TransactionLoop::TransactionLoop(const config::Config& config, kafka::TransactionalProducer* producer,
                                 ReleaseMetricsExporter* metrics, ReleaseQueues* queues, ComputePool* pool,
                                 ShareCollector* collector)
    : config_(config), producer_(producer), metrics_(metrics), queues_(queues), pool_(pool), collector_(collector) {
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "vanon-release");  // for top -H and perf
    Loop();
  });
}

void TransactionLoop::Stop() {
  {
    std::lock_guard<std::mutex> l(queues_->mu);
    queues_->stopping = true;
  }
  queues_->work_cv.notify_all();
  if (thread_.joinable()) thread_.join();
}

void TransactionLoop::Loop() {
  for (;;) {
    {
      std::unique_lock<std::mutex> l(queues_->mu);
      queues_->work_cv.wait(l, [&] { return queues_->stopping || !queues_->to_publish.empty(); });
      if (queues_->stopping) return;
    }
    batch_open_since_ = std::chrono::duration_cast<std::chrono::seconds>(SteadyClock::now().time_since_epoch()).count();
    try {
      std::vector<JobPtr> out = RunBatch();
      batch_open_since_ = 0;
      std::lock_guard<std::mutex> l(queues_->mu);
      for (JobPtr& job : out) queues_->done.push_back(std::move(job));
      queues_->publishing -= out.size();
    } catch (...) {
      std::lock_guard<std::mutex> l(queues_->mu);
      queues_->error = std::current_exception();
      queues_->done_cv.notify_all();
      return;
    }
    queues_->done_cv.notify_all();
  }
}

// Moves prepared jobs into the batch. Caller holds mu.
void TransactionLoop::Join(Batch& b) {
  std::deque<JobPtr>& queued = queues_->to_publish;
  while (!queued.empty() && b.jobs.size() < kMaxBatchShares) {
    b.jobs.push_back(std::move(queued.front()));
    queued.pop_front();
  }
}

// Waits until job i of the batch is computed (taking in jobs prepared
// meanwhile), or returns null when the batch has no job i and nothing is
// prepared or being prepared: then the batch is sealed.
//
// Partitions of one epoch usually close a poll or two apart, and preparing
// a group of them takes 50-70 ms (a synced write, the changelog's prepare
// transaction, the end offsets): a batch sealed before the later group was
// prepared made it wait for a whole transaction, 0.08-0.14 s of the
// release's latency in bench_release_e2e.
ReleaseJob* TransactionLoop::NextComputed(Batch& b, size_t i) {
  std::unique_lock<std::mutex> l(queues_->mu);
  for (;;) {
    if (!b.sealed) Join(b);
    if (i >= b.jobs.size()) {
      if (!b.sealed && queues_->preparing > 0 && !queues_->stopping && b.jobs.size() < kMaxBatchShares) {
        const auto t_wait = SteadyClock::now();
        queues_->work_cv.wait_for(l, kMaxPreparingWait, [&] {
          return queues_->preparing == 0 || queues_->stopping || !queues_->to_publish.empty();
        });
        b.preparing_wait_s += SecondsSince(t_wait);
        if (!queues_->to_publish.empty()) continue;
      }
      b.sealed = true;
      return nullptr;
    }
    ReleaseJob& job = *b.jobs[i];
    if (job.computed) {
      if (job.error) std::rethrow_exception(job.error);
      return &job;
    }
    const auto t_wait = SteadyClock::now();
    queues_->work_cv.wait(l, [&] {
      return job.computed || (!b.sealed && !queues_->to_publish.empty() && b.jobs.size() < kMaxBatchShares);
    });
    b.computing_wait_s += SecondsSince(t_wait);
  }
}

// Jobs are computed by the computing threads (precomputed ones usually
// before their close) while this thread produces each finished one, in
// order, into the batch's transaction.
std::vector<JobPtr> TransactionLoop::RunBatch() {
  const auto t0 = SteadyClock::now();
  Batch b;
  Publish(b);
  const double computed_after = SecondsSince(t0);
  const int64_t commit_wall = WallMs();
  FaultPoint("release.after_commit");
  size_t events = 0;
  for (JobPtr& job : b.jobs) {
    ComputedShare& s = job->share;
    job->commit_wall_ms = commit_wall;
    job->seconds = SecondsSince(job->submitted);
    events += s.records.events.size();
    if (metrics_ && !s.committed_before) metrics_->ObserveLatencies(s.published_ts, commit_wall);
    s.records.events.Release();  // published; only the summary is kept, in the log entry
    s.records.groups = {};
    s.published_ts = {};
  }
  spdlog::info(
      "release batch: {} shares, {} events, {} changelog records, produced after {:.3f} s ({:.3f} s of it waiting "
      "for shares to be computed, {:.3f} s for shares being prepared; offsets sent in {:.3f} s, commit {:.3f} s), "
      "committed after {:.3f} s",
      b.jobs.size(), events, b.changelog_records, computed_after, b.computing_wait_s, b.preparing_wait_s, b.offsets_s,
      b.commit_s, SecondsSince(t0));
  return std::move(b.jobs);
}

// A share that fails its check withholds the whole batch (its transaction
// aborted before any record of that share was produced) until a
// recomputation passes.
void TransactionLoop::Publish(Batch& b) {
  for (int attempt = 1;; ++attempt) {
    const size_t bad = PublishOnce(b);
    if (bad == kNone) return;
    ReleaseJob& job = *b.jobs[bad];
    if (metrics_) metrics_->CheckFailed();
    spdlog::error(
        "release {} partition {}: the share failed the independent check ({} violations, first: {}); "
        "nothing of its batch published (attempt {} of {})",
        job.epoch, job.partition, job.share.violations.size(), job.share.violations.front(), attempt, kCheckAttempts);
    if (attempt >= kCheckAttempts) {
      throw std::runtime_error("release " + std::to_string(job.epoch) + " partition " + std::to_string(job.partition) +
                               " failed the independent check " + std::to_string(attempt) + " times; withheld");
    }
    std::unique_lock<std::mutex> l(queues_->mu);
    queues_->work_cv.wait_for(l, std::chrono::seconds(1 << (attempt - 1)), [&] { return queues_->stopping; });
    pool_->Recompute(b.jobs[bad]);
  }
}

// One transaction for every job of the batch that no earlier attempt
// committed; each share's summary follows its own records. A retry after
// an abortable error produces the (by then sealed) batch again from memory.
// Returns the index of a job whose share failed its check (the transaction
// then aborted), or kNone once committed.
size_t TransactionLoop::PublishOnce(Batch& b) {
  for (int attempt = 1;; ++attempt) {
    bool open = false;
    try {
      kafka::KafkaHeaders headers = {{"vanon.attempt", AttemptId()}};
      std::map<int32_t, int64_t> resume_offsets;  // input partition -> offset, for the changelog
      bool mid_produce_point = true;              // the fault point's first chance in this transaction
      // Crash tests only: each share's changelog records reach the broker
      // before its own (see kFaultPoints).
      const bool changelog_first = changelog_ && FaultPointIs("release.changelog_first");
      b.changelog_records = 0;
      for (size_t i = 0;; ++i) {
        ReleaseJob* job = NextComputed(b, i);  // rethrows the share's computation error
        if (job == nullptr) break;
        const ComputedShare& s = job->share;
        // Before the committed_before skip: a recomputation of a release
        // an earlier attempt published that fails its check must not be
        // applied either.
        if (!s.violations.empty()) {
          if (open) producer_->AbortTransaction();
          return i;
        }
        Commit(*job);
        if (s.committed_before) continue;
        if (!open) producer_->BeginTransaction();
        open = true;
        ShareDeliveryHold hold;  // crash tests: the share reaches the broker whole or not at all
        if (changelog_first) {
          b.changelog_records += ProduceChangelog(*job, headers, &resume_offsets);
          producer_->Flush(30000);
          FaultPoint("release.changelog_first");
        }
        collector_->Produce(s, headers, &mid_produce_point);
        if (changelog_ && !changelog_first) b.changelog_records += ProduceChangelog(*job, headers, &resume_offsets);
        if (FaultInjectionEnabled()) producer_->Flush(30000);
      }
      if (!open) return kNone;  // every share was committed by an earlier attempt
      const auto t_offsets = SteadyClock::now();
      if (changelog_) changelog_->CommitOffsets(resume_offsets);
      b.offsets_s = SecondsSince(t_offsets);
      FaultPoint("release.before_commit");  // each share was flushed at the end of its hold
      const auto t_commit = SteadyClock::now();
      producer_->CommitTransaction();
      b.commit_s = SecondsSince(t_commit);
      return kNone;
    } catch (const kafka::AbortableKafkaError& e) {
      spdlog::warn("release batch: transaction attempt {} failed, aborting: {}", attempt, e.what());
      producer_->AbortTransaction();
      if (attempt >= kCommitAttempts) throw;
    } catch (const kafka::FencedByGroupError& e) {
      // A zombie: the partitions are another member's now. Its attempt is
      // aborted and nothing of the batch is applied; the service stops.
      spdlog::error("release batch: {}; aborting the transaction, applying nothing", e.what());
      producer_->AbortTransaction();
      throw;
    }
  }
}

// The committed release's log entry and the partition's state as of it,
// added to the share's apply batch: once per computation of the share
// (the values of its first transaction attempt are those of every retry).
void TransactionLoop::Commit(ReleaseJob& job) {
  if (job.committed) return;
  const ComputedShare& s = job.share;
  job.committed = CommitRelease(*job.base, s.epoch, s.published_events, s.suppressed_events, job.entry,
                                s.records.summary, WallMs());
  AddCommittedRecords(s.partition, s.epoch, *job.committed, job.apply.get());
}

// The share's state changes and the offset to resume at, in its
// transaction. Returns the number of changelog records produced.
size_t TransactionLoop::ProduceChangelog(const ReleaseJob& job, const kafka::KafkaHeaders& headers,
                                         std::map<int32_t, int64_t>* resume_offsets) {
  const ComputedShare& s = job.share;
  const size_t n = changelog_->ProduceShare(s.partition, s.epoch, *job.apply, s.dp.ledger_record, headers);
  if (job.base->resume_offset >= 0) (*resume_offsets)[s.partition] = job.base->resume_offset;
  return n;
}

}  // namespace vanon::service
