#include "vanon/seal/record_sealer.h"
#include "service/release/release_runner.h"

#include <spdlog/spdlog.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <algorithm>
#include <deque>
#include <memory>
#include <exception>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "base/hex.h"
#include "base/machine.h"
#include "service/collector/changelog_writer.h"
#include "service/task/partition_task.h"
#include "service/task/prepared_epoch_filter.h"
#include "service/task/task_registry.h"
#include "service/share/release_share.h"
#include "service/store/store_share_state.h"
#include "vanon/kafka/committed_reader.h"
#include "vanon/kafka/transactional_producer.h"
#include "vanon/release/epoch_clock.h"
#include "vanon/release/schema_from_config.h"
#include "vanon/release/seed_stream.h"
#include "service/support/fault_injection.h"
#include "service/store/released_state.h"
#include "service/release/release_metrics.h"
#include "vanon/state/state_store.h"

namespace vanon::service {

namespace {

using SteadyClock = std::chrono::steady_clock;

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

double SecondsSince(SteadyClock::time_point t) { return std::chrono::duration<double>(SteadyClock::now() - t).count(); }

constexpr int kCommitAttempts = 3;
// A batch whose share fails ReleaseChecker is aborted and tried again (the
// share computed anew) this many times, waiting 1, 2, 4, ... s in between,
// before the runner gives up (fatal: the service exits, and its restart
// resumes the prepared release). Meanwhile ingestion goes on.
constexpr int kCheckAttempts = 6;
// Shares of a batch are computed on one thread per hardware thread (two on
// the target machines): the consuming thread and librdkafka share the same
// cores, so more would only queue.
constexpr int kComputeNice = 5;
// A batch stops taking in queued shares at this size, so its records (held
// until commit) stay bounded.
constexpr size_t kMaxBatchShares = 64;

// Marks a transaction attempt (header only, never part of a record's value):
// lets an operator or a test tell two attempts at the same release apart.
std::string AttemptId() {
  unsigned char b[8];
  if (RAND_bytes(b, sizeof b) != 1) throw std::runtime_error("OpenSSL RAND_bytes failed");
  return base::HexEncode(std::string_view(reinterpret_cast<const char*>(b), sizeof b));
}

}  // namespace

struct ReleaseRunner::Rep {
  // One partition's share of one release, from the take of its events to
  // its apply. A job is either precomputed (its events taken ahead of the
  // close; nothing durable yet, so it may still be dropped) or prepared (its
  // release-log entry is durable; it will be published).
  struct Job {
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
    int64_t commit_wall_ms = 0;
    double seconds = 0;
  };
  using JobPtr = std::shared_ptr<Job>;

  const config::Config& config;
  state::StateStore* store;
  kafka::TransactionalProducer* producer;
  ReleaseMetricsExporter* metrics;
  OutputTopology topology;
  DpPublisher* dp;
  ChangelogWriter* changelog = nullptr;          // set before the first Submit
  seal::RecordSealer* partial_sealer = nullptr;  // set before the first Submit with global DP counts
  engine::Schema schema;
  release::PayloadTransformer payload;  // for the published time bucket only (const use)
  StoreShareState share_state;
  ShareContext ctx;
  std::map<int32_t, uint64_t> waiting;  // consuming thread only

  mutable std::mutex mu;
  std::condition_variable work_cv, done_cv;
  std::map<int32_t, JobPtr> jobs;  // guarded by mu: per partition, taken and not yet applied
  // guarded by mu: per partition, until it is revoked (ForgetPartitions)
  std::map<int32_t, std::unique_ptr<PartitionChecker>> checkers;
  std::deque<JobPtr> to_compute;             // guarded by mu: not claimed by a computing thread
  std::deque<JobPtr> to_publish;             // guarded by mu: prepared, in no batch yet
  std::vector<JobPtr> done;                  // guarded by mu: committed, waiting for Apply()
  size_t publishing = 0;                     // guarded by mu: prepared jobs not yet in `done`
  std::exception_ptr error;                  // guarded by mu
  bool stopping = false;                     // guarded by mu: the release thread stops
  bool computers_stopping = false;           // guarded by mu: the computing threads stop
  std::atomic<int64_t> batch_open_since{0};  // steady seconds, 0 = no batch
  std::thread thread;
  std::vector<std::thread> computers;

  Rep(const config::Config& c, int extra, state::StateStore* s, kafka::TransactionalProducer* p,
      ReleaseMetricsExporter* m, OutputTopology t, DpPublisher* d)
      : config(c),
        store(s),
        producer(p),
        metrics(m),
        topology(t),
        dp(d),
        schema(release::SchemaFromConfig(c.quasi_identifiers, c.sensitive)),
        payload(c.payload),
        share_state(s) {
    ctx.config = &config;
    ctx.schema = &schema;
    ctx.sensitive_extra = extra;
    ctx.input_partitions = t.input_partitions;
    ctx.state = &share_state;
    ctx.dp = dp;
    ctx.payload = &payload;
    for (int k = 0; k < base::HardwareThreads(); ++k) {
      computers.emplace_back([this] {
        pthread_setname_np(pthread_self(), "vanon-compute");
        // Below the consuming thread: when both want the CPU, ingestion must
        // keep up, or epochs close late and the next release starts behind.
        setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kComputeNice);
        ComputeLoop();
      });
    }
    thread = std::thread([this] {
      pthread_setname_np(pthread_self(), "vanon-release");  // for top -H and perf
      Loop();
    });
  }

  ~Rep() {
    {
      std::lock_guard<std::mutex> l(mu);
      stopping = true;
    }
    work_cv.notify_all();
    thread.join();  // after its batch: the computing threads still serve it
    {
      std::lock_guard<std::mutex> l(mu);
      computers_stopping = true;
    }
    work_cv.notify_all();
    for (std::thread& t : computers) t.join();
  }

  int32_t ReleasesPartition(int32_t p) const { return p % topology.releases_partitions; }
  int32_t AnonymizedPartition(int32_t p) const { return p % topology.anonymized_partitions; }
  int32_t CountsPartition(int32_t p) const { return p % topology.counts_partitions; }

  // The partition's checker; only its jobs use it, one at a time.
  PartitionChecker* CheckerOf(int32_t partition) {
    std::lock_guard<std::mutex> l(mu);
    std::unique_ptr<PartitionChecker>& c = checkers[partition];
    if (!c) c = std::make_unique<PartitionChecker>(schema);
    return c.get();
  }

  // A revoked partition's state may be replaced before it comes back
  // (StateRestorer): its checker resumes from state again then. Nothing of
  // it may be in flight.
  void ForgetPartitions(const std::vector<int32_t>& partitions) {
    std::lock_guard<std::mutex> l(mu);
    for (int32_t p : partitions) checkers.erase(p);
  }

  JobPtr JobOf(int32_t partition) const {
    std::lock_guard<std::mutex> l(mu);
    auto it = jobs.find(partition);
    return it == jobs.end() ? nullptr : it->second;
  }

  bool InFlight(int32_t partition) const {
    std::lock_guard<std::mutex> l(mu);
    auto it = jobs.find(partition);
    return it != jobs.end() && it->second->prepared;
  }

  // Starts computing the shares of epochs whose end the partition's event
  // time has passed, ahead of their close. Reads no state that can change
  // before the close: the partition has nothing in flight, and only its own
  // apply writes its release state.
  void Precompute(const std::vector<int32_t>& partitions, const TaskRegistry& tasks) {
    if (!config.privacy.epoch.precompute) return;
    for (int32_t p : partitions) {
      if (JobOf(p)) continue;
      std::shared_ptr<PartitionTask> task = tasks.Get(p);
      release::EpochClock& clock = task->clock();
      const std::optional<int64_t> epoch = clock.NextPrecomputable();
      if (!epoch) continue;
      if (store->GetRelease(p, *epoch)) continue;  // prepared before a restart: resumed at the close
      auto job = std::make_shared<Job>();
      job->partition = p;
      job->epoch = *epoch;
      job->entry.seed = release::NewReleaseSeed();
      job->checker = CheckerOf(p);
      job->events = task->events().Take(clock.EpochEnd(*epoch));
      job->epoch_offsets = EpochOffsetsOf(job->events, clock.EpochStart(*epoch));
      job->taken_mark = task->events().arrivals_behind_take();
      job->task = std::move(task);
      {
        std::lock_guard<std::mutex> l(mu);
        jobs[p] = job;
        to_compute.push_back(job);
      }
      work_cv.notify_all();
    }
  }

  // Gives a precomputed job's events back to its partition's buffer and
  // forgets the job. Waits for its computation if one is running.
  void Drop(const JobPtr& job) {
    std::shared_ptr<PartitionTask> task = std::move(job->task);
    release::EventBuffer* events = &task->events();
    std::unique_lock<std::mutex> l(mu);
    if (!job->claimed) {
      to_compute.erase(std::find(to_compute.begin(), to_compute.end(), job));
      jobs.erase(job->partition);
      l.unlock();
      for (release::EpochList& list : job->events) {
        for (size_t i = 0; i < list.events.size(); ++i) {
          events->Restore({list.keys[i].first, list.keys[i].second, std::move(list.events[i])});
        }
      }
      return;
    }
    done_cv.wait(l, [&] { return job->computed; });
    jobs.erase(job->partition);
    // A failed computation consumed the events: state still has them, and a
    // restart reads them back.
    if (job->error) std::rethrow_exception(job->error);
    l.unlock();
    ReturnEvents(&job->share, events);
  }

  void DropPrecomputed() {
    std::vector<JobPtr> precomputed;
    {
      std::lock_guard<std::mutex> l(mu);
      for (const auto& [p, job] : jobs) {
        if (!job->prepared) precomputed.push_back(job);
      }
    }
    for (const JobPtr& job : precomputed) Drop(job);
  }

  // The job of a share that is to be published: its precomputed job when no
  // event joined the epoch since, else a new one (resumed from the release
  // log when an earlier attempt prepared it). `fresh`: still to compute.
  JobPtr JobForShare(const ShareRequest& s, const std::shared_ptr<PartitionTask>& task, bool* fresh) {
    JobPtr job = JobOf(s.partition);
    if (job && job->prepared) {
      throw std::logic_error("partition " + std::to_string(s.partition) + " already has a share in flight");
    }
    if (job) {
      // Exact only if no event joined the epoch after the take.
      const bool used = job->epoch == s.epoch && task->events().arrivals_behind_take() == job->taken_mark;
      if (metrics) metrics->Precomputed(used);
      if (!used) {
        spdlog::info(
            "release {} partition {}: an event of the epoch arrived after its share was computed; computing it again",
            s.epoch, s.partition);
        Drop(job);
        job = nullptr;
      }
    }
    std::optional<state::ReleaseLogEntry> stored = store->GetRelease(s.partition, s.epoch);
    if (stored && stored->status == state::ReleaseStatus::kCommitted) {
      // Apply wrote the log entry and closed the clock in one batch, so
      // this means the clock in memory is behind state: never expected.
      throw std::runtime_error("release " + std::to_string(s.epoch) + " of partition " + std::to_string(s.partition) +
                               " is committed but its epoch is still open");
    }
    *fresh = !job;
    if (!*fresh) return job;
    job = std::make_shared<Job>();
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
    job->task = task;
    return job;
  }

  // A resumed share must take the events of its epoch that its first attempt
  // took (PreparedEpochFilter sees to it while the input is still there). If
  // it does not and the first attempt committed, its recomputation would
  // store a state that contradicts the published release: fail closed. If
  // the first attempt did not commit, nobody saw it: the recomputation is
  // published, and the prepare record now records its events.
  void CheckResumedEvents(const ShareRequest& s, const Job& job, state::ReleaseLogEntry* entry,
                          state::ReleaseWrite* w) {
    if (!entry->epoch_offsets || *entry->epoch_offsets == job.epoch_offsets) return;
    if (SummaryCommitted(s.partition, s.epoch, *entry)) {
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
  // its summary will be read back.
  void PutPrepared(const ShareRequest& s, std::map<int32_t, int64_t>* high_watermarks, state::ReleaseLogEntry* entry,
                   state::ReleaseWrite* w) {
    entry->status = state::ReleaseStatus::kPrepared;
    entry->readback_partition = ReleasesPartition(s.partition);
    auto hw = high_watermarks->find(entry->readback_partition);
    if (hw == high_watermarks->end()) {
      hw = high_watermarks
               ->emplace(entry->readback_partition,
                         producer->HighWatermark(config.kafka.topics.releases, entry->readback_partition))
               .first;
    }
    entry->readback_offset = hw->second;
    entry->prepared_wall_ms = WallMs();
    w->PutRelease(s.partition, s.epoch, *entry);
  }

  void Submit(const std::vector<ShareRequest>& shares, const TaskRegistry& tasks) {
    if (shares.empty()) return;
    const auto now = SteadyClock::now();
    state::ReleaseWrite w(*store);
    std::map<int32_t, int64_t> high_watermarks;
    struct Ready {
      JobPtr job;
      state::ReleaseLogEntry entry;
      bool fresh;  // not precomputed: still to compute
    };
    std::vector<Ready> ready;
    for (const ShareRequest& s : shares) {
      const std::shared_ptr<PartitionTask> task = tasks.Get(s.partition);
      bool fresh = false;
      JobPtr job = JobForShare(s, task, &fresh);
      state::ReleaseLogEntry entry = job->entry;  // only this thread writes it
      if (job->resumed) {
        CheckResumedEvents(s, *job, &entry, &w);
      } else {
        entry.epoch_offsets = job->epoch_offsets;
        PutPrepared(s, &high_watermarks, &entry, &w);
      }
      job->submitted = now;
      job->base = TakeReleaseBase(task->clock(), task->progress(), task->events());
      ready.push_back({std::move(job), std::move(entry), fresh});
    }
    // Synced: the transaction that follows publishes what this seed yields,
    // and a prepare record lost to a machine crash after the commit would
    // make the restart publish a second, different release.
    store->Commit(w, state::Durability::kMachineCrash);
    // With the changelog, the seeds also go to Kafka before any record of
    // these shares can: a partition that moves before its release commits
    // is recomputed by its next owner with the same seed.
    if (changelog) {
      std::vector<ChangelogWriter::Prepared> prepared;
      for (const Ready& r : ready) prepared.push_back({r.job->partition, r.job->epoch, r.entry});
      changelog->PublishPrepared(prepared);
    }
    FaultPoint("release.after_prepare");
    {
      std::lock_guard<std::mutex> l(mu);
      for (Ready& r : ready) {
        r.job->entry = std::move(r.entry);
        r.job->prepared = true;
        if (r.fresh) to_compute.push_back(r.job);
        jobs[r.job->partition] = r.job;
        to_publish.push_back(std::move(r.job));
        ++publishing;
      }
    }
    work_cv.notify_all();  // the computing threads, and the release thread
  }

  // A computing thread: computes jobs in the order they were taken,
  // precomputed or prepared alike.
  void ComputeLoop() {
    std::unique_lock<std::mutex> l(mu);
    for (;;) {
      work_cv.wait(l, [&] { return computers_stopping || !to_compute.empty(); });
      if (to_compute.empty()) return;  // stopping
      JobPtr job = to_compute.front();
      to_compute.pop_front();
      job->claimed = true;
      const state::ReleaseLogEntry entry = job->entry;
      release::TakenEvents events = std::move(job->events);
      l.unlock();
      std::exception_ptr err;
      ComputedShare share;
      std::unique_ptr<state::ReleaseWrite> apply;
      try {
        bool committed_before = false;
        if (job->resumed) {
          committed_before = SummaryCommitted(job->partition, job->epoch, entry);
          spdlog::info(
              "release {} partition {}: resuming a prepared release; {}", job->epoch, job->partition,
              committed_before ? "it was committed, applying its state" : "it was not committed, republishing");
        }
        share = ComputeShare(ctx, job->partition, job->epoch, entry.seed, committed_before, std::move(events),
                             job->checker);
        apply = std::make_unique<state::ReleaseWrite>(*store);
        AddShareDelta(share.delta, apply.get());
        share.delta = {};
      } catch (...) {
        err = std::current_exception();
      }
      l.lock();
      job->share = std::move(share);
      job->apply = std::move(apply);
      job->error = err;
      job->computed = true;
      work_cv.notify_all();  // the release thread waits for its batch's jobs here
      done_cv.notify_all();  // Drop() waits here
    }
  }

  // The release thread: opens a batch when prepared jobs are queued,
  // publishes it, hands its jobs to Apply().
  void Loop() {
    for (;;) {
      {
        std::unique_lock<std::mutex> l(mu);
        work_cv.wait(l, [&] { return stopping || !to_publish.empty(); });
        if (stopping) return;
      }
      batch_open_since =
          std::chrono::duration_cast<std::chrono::seconds>(SteadyClock::now().time_since_epoch()).count();
      try {
        std::vector<JobPtr> out = RunBatch();
        batch_open_since = 0;
        std::lock_guard<std::mutex> l(mu);
        for (JobPtr& job : out) done.push_back(std::move(job));
        publishing -= out.size();
      } catch (...) {
        std::lock_guard<std::mutex> l(mu);
        error = std::current_exception();
        done_cv.notify_all();
        return;
      }
      done_cv.notify_all();
    }
  }

  // A batch: the jobs of one transaction. Jobs prepared while it is open
  // (not yet committing) join it, so a partition whose epoch closed a
  // moment after the others does not wait for a whole batch to commit.
  struct Batch {
    std::vector<JobPtr> jobs;  // guarded by mu; grows at the back only
    bool sealed = false;       // guarded by mu: no more jobs
    // Of the attempt that committed, for the batch's log line: what the
    // changelog added to the transaction, and the seconds spent sending the
    // input offsets and committing (the commit flushes every record first).
    size_t changelog_records = 0;
    double offsets_s = 0;
    double commit_s = 0;
  };

  // Moves prepared jobs into the batch. Caller holds mu.
  void Join(Batch& b) {
    while (!to_publish.empty() && b.jobs.size() < kMaxBatchShares) {
      b.jobs.push_back(std::move(to_publish.front()));
      to_publish.pop_front();
    }
  }

  // Waits until job i of the batch is computed (taking in jobs prepared
  // meanwhile), or returns null when the batch has no job i and nothing is
  // prepared: then the batch is sealed.
  Job* NextComputed(Batch& b, size_t i) {
    std::unique_lock<std::mutex> l(mu);
    for (;;) {
      if (!b.sealed) Join(b);
      if (i >= b.jobs.size()) {
        b.sealed = true;
        return nullptr;
      }
      Job& job = *b.jobs[i];
      if (job.computed) {
        if (job.error) std::rethrow_exception(job.error);
        return &job;
      }
      work_cv.wait(
          l, [&] { return job.computed || (!b.sealed && !to_publish.empty() && b.jobs.size() < kMaxBatchShares); });
    }
  }

  // Jobs are computed by the computing threads (precomputed ones usually
  // before their close) while this thread produces each finished one, in
  // order, into the batch's transaction.
  std::vector<JobPtr> RunBatch() {
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
      if (metrics && !s.committed_before) metrics->ObserveLatencies(s.published_ts, commit_wall);
      s.records.events.Release();  // published; only the summary is kept, in the log entry
      s.records.groups = {};
      s.published_ts = {};
    }
    spdlog::info(
        "release batch: {} shares, {} events, {} changelog records, produced after {:.3f} s (offsets sent in "
        "{:.3f} s, commit {:.3f} s), committed after {:.3f} s",
        b.jobs.size(), events, b.changelog_records, computed_after, b.offsets_s, b.commit_s, SecondsSince(t0));
    return std::move(b.jobs);
  }

  // True when a read_committed reader finds this release's summary after the
  // offset recorded at prepare time: the earlier attempt committed.
  bool SummaryCommitted(int32_t partition, int64_t epoch, const state::ReleaseLogEntry& entry) {
    bool found = false;
    kafka::ReadCommitted(config.kafka.bootstrap, config.kafka.properties, config.kafka.consumer_properties,
                         config.kafka.topics.releases, entry.readback_partition, entry.readback_offset,
                         [&](const kafka::CommittedRecord& r) {
                           found = release::IsSummaryOf(r.value, epoch, partition);
                           return !found;
                         });
    return found;
  }

  // Publishes the batch; a share that fails its check withholds the whole
  // batch (its transaction aborted before any record of that share was
  // produced) until a recomputation passes.
  void Publish(Batch& b) {
    for (int attempt = 1;; ++attempt) {
      const size_t bad = PublishOnce(b);
      if (bad == kNone) return;
      Job& job = *b.jobs[bad];
      if (metrics) metrics->CheckFailed();
      spdlog::error(
          "release {} partition {}: the share failed the independent check ({} violations, first: {}); "
          "nothing of its batch published (attempt {} of {})",
          job.epoch, job.partition, job.share.violations.size(), job.share.violations.front(), attempt, kCheckAttempts);
      if (attempt >= kCheckAttempts) {
        throw std::runtime_error("release " + std::to_string(job.epoch) + " partition " +
                                 std::to_string(job.partition) + " failed the independent check " +
                                 std::to_string(attempt) + " times; withheld");
      }
      std::unique_lock<std::mutex> l(mu);
      work_cv.wait_for(l, std::chrono::seconds(1 << (attempt - 1)), [&] { return stopping; });
      Recompute(b.jobs[bad], l);
    }
  }

  static constexpr size_t kNone = SIZE_MAX;

  // Puts a computed job back in the computing queue, with the events its
  // share holds. Caller holds mu.
  void Recompute(const JobPtr& job, std::unique_lock<std::mutex>&) {
    release::EventBuffer events(config.privacy.epoch.length_seconds * 1000);
    ReturnEvents(&job->share, &events);
    job->events = events.Take(release::EpochClock(config.privacy.epoch).EpochEnd(job->epoch));
    job->share = ComputedShare{};
    job->apply.reset();
    job->committed.reset();
    job->computed = false;
    job->claimed = false;
    job->error = nullptr;
    to_compute.push_front(job);
    work_cv.notify_all();
  }

  // One transaction for every job of the batch that no earlier attempt
  // committed; each share's summary follows its own records. A retry after
  // an abortable error produces the (by then sealed) batch again from memory.
  // Returns the index of a job whose share failed its check (the transaction
  // then aborted), or kNone once committed.
  size_t PublishOnce(Batch& b) {
    for (int attempt = 1;; ++attempt) {
      bool open = false;
      try {
        kafka::KafkaHeaders headers = {{"vanon.attempt", AttemptId()}};
        std::map<int32_t, int64_t> resume_offsets;  // input partition -> offset, for the changelog
        bool mid_produce_point = true;              // the fault point's first chance in this transaction
        b.changelog_records = 0;
        for (size_t i = 0;; ++i) {
          Job* job = NextComputed(b, i);  // rethrows the share's computation error
          if (job == nullptr) break;
          const ComputedShare& s = job->share;
          // Before the committed_before skip: a recomputation of a release
          // an earlier attempt published that fails its check must not be
          // applied either.
          if (!s.violations.empty()) {
            if (open) producer->AbortTransaction();
            return i;
          }
          Commit(*job);
          if (s.committed_before) continue;
          if (!open) producer->BeginTransaction();
          ProduceShare(s, headers, &mid_produce_point);
          open = true;
          if (changelog) b.changelog_records += ProduceChangelog(*job, headers, &resume_offsets);
        }
        if (!open) return kNone;  // every share was committed by an earlier attempt
        const auto t_offsets = SteadyClock::now();
        if (changelog) changelog->CommitOffsets(resume_offsets);
        b.offsets_s = SecondsSince(t_offsets);
        if (FaultInjectionEnabled()) {
          producer->Flush(30000);
          FaultPoint("release.before_commit");
        }
        const auto t_commit = SteadyClock::now();
        producer->CommitTransaction();
        b.commit_s = SecondsSince(t_commit);
        return kNone;
      } catch (const kafka::AbortableKafkaError& e) {
        spdlog::warn("release batch: transaction attempt {} failed, aborting: {}", attempt, e.what());
        producer->AbortTransaction();
        if (attempt >= kCommitAttempts) throw;
      } catch (const kafka::FencedByGroupError& e) {
        // A zombie: the partitions are another member's now. Its attempt is
        // aborted and nothing of the batch is applied; the service stops.
        spdlog::error("release batch: {}; aborting the transaction, applying nothing", e.what());
        producer->AbortTransaction();
        throw;
      }
    }
  }

  // The committed release's log entry and the partition's state as of it,
  // added to the share's apply batch: once per computation of the share
  // (the values of its first transaction attempt are those of every retry).
  void Commit(Job& job) {
    if (job.committed) return;
    const ComputedShare& s = job.share;
    job.committed = CommitRelease(*job.base, s.epoch, s.published_events, s.suppressed_events, job.entry,
                                  s.records.summary, WallMs());
    AddCommittedRecords(s.partition, s.epoch, *job.committed, job.apply.get());
  }

  // The share's state changes and the offset to resume at, in its
  // transaction. Returns the number of changelog records produced.
  size_t ProduceChangelog(const Job& job, const kafka::KafkaHeaders& headers,
                          std::map<int32_t, int64_t>* resume_offsets) {
    const ComputedShare& s = job.share;
    const size_t n = changelog->ProduceShare(s.partition, s.epoch, *job.apply, s.dp.ledger_record, headers);
    if (job.base->resume_offset >= 0) (*resume_offsets)[s.partition] = job.base->resume_offset;
    return n;
  }

  // `mid_produce_point`: the fault point release.mid_produce may still fire
  // in this transaction; it fires in the first share that has events to
  // split (an empty share would leave nothing of the transaction behind).
  void ProduceShare(const ComputedShare& s, const kafka::KafkaHeaders& headers, bool* mid_produce_point) {
    const std::string key = std::to_string(s.epoch) + "/" + std::to_string(s.partition);
    const int32_t anon = AnonymizedPartition(s.partition);
    const release::RecordList& events = s.records.events;
    const size_t half = events.size() / 2;
    for (size_t i = 0; i < half; ++i) producer->Produce(config.kafka.topics.anonymized, anon, {}, events[i], headers);
    if (*mid_produce_point && half > 0 && FaultInjectionEnabled()) {
      *mid_produce_point = false;
      producer->Flush(30000);  // so the broker really holds half a transaction
      FaultPoint("release.mid_produce");
    }
    for (size_t i = half; i < events.size(); ++i) {
      producer->Produce(config.kafka.topics.anonymized, anon, {}, events[i], headers);
    }
    const int32_t counts = CountsPartition(s.partition);
    for (const std::string& d : s.dp.records) producer->Produce(config.kafka.topics.counts, counts, key, d, headers);
    // Exact DP window counts for the aggregation partition (internal topic).
    for (const auto& [k, v] : s.dp.partials) {
      if (partial_sealer == nullptr) throw std::logic_error("release: DP partials without a sealer");
      const std::string& topic = config.dp.aggregation.topic;
      producer->Produce(topic, 0, k, partial_sealer->Seal({topic, 0, k}, v), headers);
    }
    const int32_t rel = ReleasesPartition(s.partition);
    for (const std::string& g : s.records.groups) producer->Produce(config.kafka.topics.releases, rel, key, g, headers);
    producer->Produce(config.kafka.topics.releases, rel, key, s.records.summary, headers);
  }

  std::vector<ReleaseOutcome> Apply(bool wait) {
    std::vector<JobPtr> ready;
    {
      std::unique_lock<std::mutex> l(mu);
      if (wait) done_cv.wait(l, [&] { return error || publishing == 0; });
      if (error) std::rethrow_exception(error);
      ready.swap(done);
    }
    std::vector<ReleaseOutcome> outcomes;
    for (JobPtr& job : ready) {
      outcomes.push_back(ApplyShare(*job));
      std::lock_guard<std::mutex> l(mu);
      jobs.erase(job->partition);
    }
    return outcomes;  // the jobs, and the events they hold, are freed here, on the consuming thread
  }

  ReleaseOutcome ApplyShare(Job& job) {
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
    store->Commit(w);
    job.checker->checker.Accept(std::move(s.verdict));
    for (release::KeyedEvent& e : s.remaining) task->events().Restore(std::move(e));
    s.remaining = {};
    FaultPoint("release.after_apply");

    if (dp) dp->Committed(s.dp);
    waiting[s.partition] = s.waiting;
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
    if (metrics) {
      metrics->Record({s.metrics, s.published_events, s.qi_at_root, o.seconds, job.commit_wall_ms});
      metrics->SetWaiting(Waiting());
    }
    const engine::ReleaseMetrics& m = s.metrics;
    spdlog::info(
        "release {} partition {}: {} tuples, {} published in {} groups, {} counterfeits, suppressed "
        "{}/{}/{} (conflict/delay/ineligible), {} waiting, {} events out, {:.3f} s{}",
        s.epoch, s.partition, m.tuples, m.published, m.groups, m.counterfeits, m.suppressed_by_reason[0],
        m.suppressed_by_reason[1], m.suppressed_by_reason[2], m.waiting, s.published_events, o.seconds,
        o.recovered     ? " (recovered after a crash)"
        : o.republished ? " (republished after a crash)"
                        : "");
    return o;
  }

  uint64_t Waiting() const {
    uint64_t n = 0;
    for (const auto& [p, k] : waiting) n += k;
    return n;
  }
};

ReleaseRunner::ReleaseRunner(const config::Config& config, int sensitive_extra, state::StateStore* store,
                             kafka::TransactionalProducer* producer, ReleaseMetricsExporter* metrics,
                             OutputTopology topology, DpPublisher* dp)
    : rep_(std::make_unique<Rep>(config, sensitive_extra, store, producer, metrics, topology, dp)) {}

ReleaseRunner::~ReleaseRunner() = default;

void ReleaseRunner::Precompute(const std::vector<int32_t>& partitions, const TaskRegistry& tasks) {
  rep_->Precompute(partitions, tasks);
}

void ReleaseRunner::Submit(const std::vector<ShareRequest>& shares, const TaskRegistry& tasks) {
  rep_->Submit(shares, tasks);
}

void ReleaseRunner::DropPrecomputed() { rep_->DropPrecomputed(); }

void ReleaseRunner::ForgetPartitions(const std::vector<int32_t>& partitions) { rep_->ForgetPartitions(partitions); }

bool ReleaseRunner::InFlight(int32_t partition) const { return rep_->InFlight(partition); }

std::vector<ReleaseOutcome> ReleaseRunner::Apply(bool wait) { return rep_->Apply(wait); }

uint64_t ReleaseRunner::waiting() const { return rep_->Waiting(); }

void ReleaseRunner::SetChangelog(ChangelogWriter* changelog) { rep_->changelog = changelog; }

void ReleaseRunner::SetPartialSealer(seal::RecordSealer* sealer) { rep_->partial_sealer = sealer; }

int64_t ReleaseRunner::BatchOpenSince() const { return rep_->batch_open_since.load(); }

}  // namespace vanon::service
