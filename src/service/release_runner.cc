#include "vanon/service/release_runner.h"

#include <simdjson.h>
#include <spdlog/spdlog.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "release_share.h"
#include "vanon/kafka/committed_reader.h"
#include "vanon/kafka/transactional_producer.h"
#include "vanon/release/schema_from_config.h"
#include "vanon/release/seed_stream.h"
#include "vanon/service/fault_injection.h"
#include "vanon/service/ingest_pipeline.h"
#include "vanon/service/release_metrics.h"
#include "vanon/state/state_store.h"

namespace vanon {

namespace {

using SteadyClock = std::chrono::steady_clock;

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch()).count();
}

double SecondsSince(SteadyClock::time_point t) {
  return std::chrono::duration<double>(SteadyClock::now() - t).count();
}

// The release log keeps this many releases per partition (for operators and
// for restoring the last-release metrics); older entries are deleted.
constexpr int64_t kReleaseLogLength = 1000;
constexpr int kCommitAttempts = 3;
// Shares of a batch computed at once. The target machines have two cores;
// the consuming thread and librdkafka share them, so more would only queue.
constexpr int kComputeThreads = 2;
constexpr int kComputeNice = 5;
// A batch stops taking in queued shares at this size, so its records (held
// until commit) stay bounded.
constexpr size_t kMaxBatchShares = 64;

// Marks a transaction attempt (header only, never part of a record's value):
// lets an operator or a test tell two attempts at the same release apart.
std::string AttemptId() {
  unsigned char b[8];
  if (RAND_bytes(b, sizeof b) != 1) throw std::runtime_error("OpenSSL RAND_bytes failed");
  static const char* kHex = "0123456789abcdef";
  std::string s;
  for (unsigned char c : b) {
    s.push_back(kHex[c >> 4]);
    s.push_back(kHex[c & 15]);
  }
  return s;
}

}  // namespace

struct ReleaseRunner::Impl {
  // A prepared share waiting for, or in, the release thread.
  struct Pending {
    int32_t partition = 0;
    int64_t epoch = 0;
    ReleaseLogEntry entry;
    bool resumed = false;  // prepared by an earlier process
    SteadyClock::time_point submitted;
    TakenEvents events;
  };
  // A share whose transaction committed, waiting for Apply().
  struct Published {
    ComputedShare share;
    bool resumed = false;
    int64_t commit_wall_ms = 0;
    double seconds = 0;
  };

  const Config& config;
  StateStore* store;
  TransactionalProducer* producer;
  ReleaseMetricsExporter* metrics;
  OutputTopology topology;
  DpPublisher* dp;
  Schema schema;
  PayloadTransformer payload;  // for the published time bucket only (const use)
  ShareContext ctx;
  std::map<int32_t, uint64_t> waiting;  // consuming thread only

  mutable std::mutex mu;
  std::condition_variable work_cv, done_cv;
  std::deque<Pending> queue;       // guarded by mu
  std::vector<Published> done;     // guarded by mu
  std::set<int32_t> in_flight;     // guarded by mu: queued, computing, or done
  size_t computing = 0;            // guarded by mu: shares taken from the queue, not yet done
  std::exception_ptr error;        // guarded by mu
  bool stopping = false;           // guarded by mu
  std::atomic<int64_t> batch_open_since{0};  // steady seconds, 0 = no batch
  std::thread thread;

  Impl(const Config& c, int extra, StateStore* s, TransactionalProducer* p, ReleaseMetricsExporter* m,
       OutputTopology t, DpPublisher* d)
      : config(c),
        store(s),
        producer(p),
        metrics(m),
        topology(t),
        dp(d),
        schema(SchemaFromConfig(c)),
        payload(c.payload) {
    ctx.config = &config;
    ctx.schema = &schema;
    ctx.sensitive_extra = extra;
    ctx.input_partitions = t.input_partitions;
    ctx.store = store;
    ctx.dp = dp;
    ctx.payload = &payload;
    thread = std::thread([this] {
      pthread_setname_np(pthread_self(), "vanon-release");  // for top -H and perf
      Loop();
    });
  }

  ~Impl() {
    {
      std::lock_guard<std::mutex> l(mu);
      stopping = true;
    }
    work_cv.notify_all();
    thread.join();
  }

  int32_t ReleasesPartition(int32_t p) const { return p % topology.releases_partitions; }
  int32_t AnonymizedPartition(int32_t p) const { return p % topology.anonymized_partitions; }
  int32_t CountsPartition(int32_t p) const { return p % topology.counts_partitions; }

  void Submit(const std::vector<ShareRequest>& shares, const std::function<PartitionState(int32_t)>& state_of) {
    if (shares.empty()) return;
    const auto now = SteadyClock::now();
    ReleaseWrite w(*store);
    std::map<int32_t, int64_t> high_watermarks;
    std::vector<Pending> ready;
    for (const ShareRequest& s : shares) {
      const PartitionState state = state_of(s.partition);
      if (InFlight(s.partition)) {
        throw std::logic_error("partition " + std::to_string(s.partition) + " already has a share in flight");
      }
      Pending p;
      p.partition = s.partition;
      p.epoch = s.epoch;
      p.submitted = now;
      std::optional<ReleaseLogEntry> entry = store->GetRelease(s.partition, s.epoch);
      if (entry && entry->status == ReleaseStatus::kCommitted) {
        // Apply wrote the log entry and closed the clock in one batch, so
        // this means the clock in memory is behind state: never expected.
        throw std::runtime_error("release " + std::to_string(s.epoch) + " of partition " +
                                 std::to_string(s.partition) + " is committed but its epoch is still open");
      }
      if (entry) {
        p.entry = *entry;
        p.resumed = true;
      } else {
        p.entry.status = ReleaseStatus::kPrepared;
        p.entry.seed = NewReleaseSeed();
        p.entry.readback_partition = ReleasesPartition(s.partition);
        auto hw = high_watermarks.find(p.entry.readback_partition);
        if (hw == high_watermarks.end()) {
          hw = high_watermarks
                   .emplace(p.entry.readback_partition,
                            producer->HighWatermark(config.kafka.topics.releases, p.entry.readback_partition))
                   .first;
        }
        p.entry.readback_offset = hw->second;
        p.entry.prepared_wall_ms = WallMs();
        w.PutRelease(s.partition, s.epoch, p.entry);
        // The watermark that closed the epoch is stored with the seed: after
        // a restart, events of this epoch stay late, so the recomputation
        // sees exactly the events the first attempt saw.
        w.PutMeta(s.partition, kClockMeta, state.clock->EncodeState());
      }
      p.events = state.events->Take(state.clock->EpochEnd(s.epoch));
      ready.push_back(std::move(p));
    }
    store->Commit(w);
    FaultPoint("release.after_prepare");
    {
      std::lock_guard<std::mutex> l(mu);
      for (Pending& p : ready) {
        in_flight.insert(p.partition);
        queue.push_back(std::move(p));
      }
    }
    work_cv.notify_all();  // the release thread, and a batch's computing threads
  }

  bool InFlight(int32_t partition) const {
    std::lock_guard<std::mutex> l(mu);
    return in_flight.count(partition) > 0;
  }

  // A batch: the shares of one transaction. Shares queued while it is open
  // (not yet committing) join it, so a partition whose epoch closed a
  // moment after the others does not wait for a whole batch to commit.
  struct Slot {
    Pending pending;
    Published out;
    bool computed = false;       // guarded by mu
    std::exception_ptr error;    // guarded by mu
  };
  struct Batch {
    std::deque<Slot> slots;      // guarded by mu; grows at the back only
    size_t claimed = 0;          // guarded by mu: slots a computing thread took
    bool sealed = false;         // guarded by mu: no more slots; threads exit
    bool failed = false;         // guarded by mu
  };

  // The release thread: opens a batch when shares are queued, publishes it,
  // hands its shares to Apply().
  void Loop() {
    for (;;) {
      {
        std::unique_lock<std::mutex> l(mu);
        work_cv.wait(l, [&] { return stopping || !queue.empty(); });
        if (stopping) return;
      }
      batch_open_since = std::chrono::duration_cast<std::chrono::seconds>(
                             SteadyClock::now().time_since_epoch()).count();
      try {
        std::vector<Published> out = RunBatch();
        batch_open_since = 0;
        std::lock_guard<std::mutex> l(mu);
        for (Published& p : out) done.push_back(std::move(p));
        computing = 0;
      } catch (...) {
        std::lock_guard<std::mutex> l(mu);
        error = std::current_exception();
        computing = 0;
        done_cv.notify_all();
        return;
      }
      done_cv.notify_all();
    }
  }

  // Moves queued shares into the batch. Caller holds mu.
  void Join(Batch& b) {
    while (!queue.empty() && b.slots.size() < kMaxBatchShares) {
      Slot& slot = b.slots.emplace_back();
      slot.pending = std::move(queue.front());
      queue.pop_front();
      ++computing;
    }
    work_cv.notify_all();
  }

  // A computing thread: takes unclaimed slots, in order, until the batch is
  // sealed.
  void Compute(Batch& b, SteadyClock::time_point t0, std::atomic<double>* last) {
    std::unique_lock<std::mutex> l(mu);
    for (;;) {
      work_cv.wait(l, [&] { return b.sealed || b.claimed < b.slots.size(); });
      if (b.claimed >= b.slots.size()) return;  // sealed
      Slot& slot = b.slots[b.claimed++];
      const bool abandon = b.failed;
      l.unlock();
      std::exception_ptr err;
      try {
        if (abandon) throw std::runtime_error("release batch abandoned after an earlier share failed");
        Pending& p = slot.pending;
        bool committed_before = false;
        if (p.resumed) {
          committed_before = SummaryCommitted(p.partition, p.epoch, p.entry);
          spdlog::info("release {} partition {}: resuming a prepared release; {}", p.epoch, p.partition,
                       committed_before ? "it was committed, applying its state"
                                        : "it was not committed, republishing");
        }
        slot.out.resumed = p.resumed;
        slot.out.share = ComputeShare(ctx, p.partition, p.epoch, p.entry, committed_before,
                                      std::move(p.events));
        *last = SecondsSince(t0);
      } catch (...) {
        err = std::current_exception();
      }
      l.lock();
      slot.computed = true;
      slot.error = err;
      if (err) b.failed = true;
      work_cv.notify_all();
    }
  }

  // Waits until slot i is computed (taking in shares queued meanwhile), or
  // returns null when every slot has been handed out and nothing is queued:
  // then the batch is sealed.
  Slot* NextComputed(Batch& b, size_t i) {
    std::unique_lock<std::mutex> l(mu);
    for (;;) {
      if (!b.sealed) Join(b);
      if (i >= b.slots.size()) {
        b.sealed = true;
        work_cv.notify_all();
        return nullptr;
      }
      if (b.slots[i].computed) {
        if (b.slots[i].error) std::rethrow_exception(b.slots[i].error);
        return &b.slots[i];
      }
      work_cv.wait(l, [&] {
        return b.slots[i].computed || (!b.sealed && !queue.empty() && b.slots.size() < kMaxBatchShares);
      });
    }
  }

  // Shares are computed by a small pool while this thread produces each
  // finished share, in order, into the batch's transaction: producing (and
  // librdkafka's sending) overlaps computing.
  std::vector<Published> RunBatch() {
    const auto t0 = SteadyClock::now();
    Batch b;
    std::atomic<double> last_computed{0};
    std::vector<std::thread> pool;
    for (int k = 0; k < kComputeThreads; ++k) {
      pool.emplace_back([this, &b, t0, &last_computed] {
        pthread_setname_np(pthread_self(), "vanon-compute");
        // Below the consuming thread: when both want the CPU, ingestion must
        // keep up, or epochs close late and the next release starts behind.
        setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kComputeNice);
        Compute(b, t0, &last_computed);
      });
    }
    struct Joiner {
      Impl& impl;
      Batch& b;
      std::vector<std::thread>& threads;
      ~Joiner() {
        {
          std::lock_guard<std::mutex> l(impl.mu);
          if (!b.sealed) {  // an exception is unwinding: stop computing
            b.sealed = true;
            b.failed = true;
          }
        }
        impl.work_cv.notify_all();
        for (std::thread& t : threads) t.join();
      }
    } joiner{*this, b, pool};

    Publish(b);
    const int64_t commit_wall = WallMs();
    FaultPoint("release.after_commit");
    std::vector<Published> out;
    size_t events = 0;
    for (Slot& slot : b.slots) {
      Published& pub = out.emplace_back(std::move(slot.out));
      pub.commit_wall_ms = commit_wall;
      pub.seconds = SecondsSince(slot.pending.submitted);
      events += pub.share.records.events.size();
      if (metrics && !pub.share.committed_before) metrics->ObserveLatencies(pub.share.published_ts, commit_wall);
      pub.share.records.events = {};  // published; only the summary is kept, in the log entry
      pub.share.records.groups = {};
      pub.share.published_ts = {};
    }
    spdlog::info("release batch: {} shares, {} events, all computed after {:.3f} s, committed after {:.3f} s",
                 out.size(), events, last_computed.load(), SecondsSince(t0));
    return out;
  }

  // True when a read_committed reader finds this release's summary after the
  // offset recorded at prepare time: the earlier attempt committed.
  bool SummaryCommitted(int32_t partition, int64_t epoch, const ReleaseLogEntry& entry) {
    bool found = false;
    simdjson::ondemand::parser parser;
    ReadCommitted(config.kafka.bootstrap, config.kafka.properties, config.kafka.consumer_properties,
                  config.kafka.topics.releases, entry.readback_partition, entry.readback_offset,
                  [&](const CommittedRecord& r) {
                    simdjson::padded_string json(r.value);
                    simdjson::ondemand::document doc;
                    if (parser.iterate(json).get(doc)) return true;
                    std::string_view type;
                    int64_t release = 0, part = 0;
                    if (doc["type"].get_string().get(type) || type != "summary") return true;
                    if (doc["release"].get_int64().get(release) || release != epoch) return true;
                    if (doc["partition"].get_int64().get(part) || part != partition) return true;
                    found = true;
                    return false;
                  });
    return found;
  }

  // One transaction for every share of the batch that no earlier attempt
  // committed; each share's summary follows its own records. A retry after
  // an abortable error produces the (by then sealed) batch again from memory.
  void Publish(Batch& b) {
    for (int attempt = 1;; ++attempt) {
      bool open = false;
      try {
        KafkaHeaders headers = {{"vanon.attempt", AttemptId()}};
        for (size_t i = 0;; ++i) {
          Slot* slot = NextComputed(b, i);  // rethrows the share's computation error
          if (slot == nullptr) break;
          const ComputedShare& s = slot->out.share;
          if (s.committed_before) continue;
          if (!open) producer->BeginTransaction();
          ProduceShare(s, headers, !open);
          open = true;
        }
        if (!open) return;  // every share was committed by an earlier attempt
        if (FaultInjectionEnabled()) {
          producer->Flush(30000);
          FaultPoint("release.before_commit");
        }
        producer->CommitTransaction();
        return;
      } catch (const AbortableKafkaError& e) {
        spdlog::warn("release batch: transaction attempt {} failed, aborting: {}", attempt, e.what());
        producer->AbortTransaction();
        if (attempt >= kCommitAttempts) throw;
      }
    }
  }

  void ProduceShare(const ComputedShare& s, const KafkaHeaders& headers, bool first) {
    const std::string key = std::to_string(s.epoch) + "/" + std::to_string(s.partition);
    const int32_t anon = AnonymizedPartition(s.partition);
    const std::vector<std::string>& events = s.records.events;
    const size_t half = events.size() / 2;
    for (size_t i = 0; i < half; ++i) producer->Produce(config.kafka.topics.anonymized, anon, {}, events[i], headers);
    if (first && FaultInjectionEnabled()) {
      producer->Flush(30000);  // so the broker really holds half a transaction
      FaultPoint("release.mid_produce");
    }
    for (size_t i = half; i < events.size(); ++i) {
      producer->Produce(config.kafka.topics.anonymized, anon, {}, events[i], headers);
    }
    const int32_t counts = CountsPartition(s.partition);
    for (const std::string& d : s.dp.records) producer->Produce(config.kafka.topics.counts, counts, key, d, headers);
    const int32_t rel = ReleasesPartition(s.partition);
    for (const std::string& g : s.records.groups) producer->Produce(config.kafka.topics.releases, rel, key, g, headers);
    producer->Produce(config.kafka.topics.releases, rel, key, s.records.summary, headers);
  }

  std::vector<ReleaseOutcome> Apply(const std::function<PartitionState(int32_t)>& state_of, bool wait) {
    std::vector<Published> ready;
    {
      std::unique_lock<std::mutex> l(mu);
      if (wait) done_cv.wait(l, [&] { return error || (queue.empty() && computing == 0); });
      if (error) std::rethrow_exception(error);
      ready.swap(done);
    }
    std::vector<ReleaseOutcome> outcomes;
    for (Published& pub : ready) {
      outcomes.push_back(ApplyShare(pub, state_of(pub.share.partition)));
      std::lock_guard<std::mutex> l(mu);
      in_flight.erase(pub.share.partition);
    }
    return outcomes;
  }

  ReleaseOutcome ApplyShare(Published& pub, PartitionState state) {
    ComputedShare& s = pub.share;
    ReleaseWrite& w = *s.apply;
    state.clock->Close(s.epoch);
    state.progress->released += s.published_events;
    state.progress->suppressed += s.suppressed_events;
    state.progress->releases++;
    ReleaseLogEntry entry = s.entry;
    entry.status = ReleaseStatus::kCommitted;
    entry.committed_wall_ms = pub.commit_wall_ms;
    entry.summary = s.records.summary;
    w.PutMeta(s.partition, kClockMeta, state.clock->EncodeState());
    w.SetProgress(s.partition, *state.progress);
    w.PutRelease(s.partition, s.epoch, entry);
    w.DeleteRelease(s.partition, s.epoch - kReleaseLogLength);
    store->Commit(w);
    for (KeyedEvent& e : s.remaining) state.events->Add(std::move(e));
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
    o.recovered = pub.resumed && s.committed_before;
    o.republished = pub.resumed && !s.committed_before;
    o.dp_records = s.dp.records.size();
    o.dp_budget_exhausted = s.dp.budget_exhausted;
    o.seconds = pub.seconds;
    if (metrics) {
      metrics->Record({s.metrics, s.published_events, o.seconds, pub.commit_wall_ms});
      metrics->SetWaiting(Waiting());
    }
    const ReleaseMetrics& m = s.metrics;
    spdlog::info(
        "release {} partition {}: {} tuples, {} published in {} groups, {} counterfeits, suppressed "
        "{}/{}/{} (conflict/delay/ineligible), {} waiting, {} events out, {:.3f} s{}",
        s.epoch, s.partition, m.tuples, m.published, m.groups, m.counterfeits, m.suppressed_by_reason[0],
        m.suppressed_by_reason[1], m.suppressed_by_reason[2], m.waiting, s.published_events, o.seconds,
        o.recovered ? " (recovered after a crash)" : o.republished ? " (republished after a crash)" : "");
    return o;
  }

  uint64_t Waiting() const {
    uint64_t n = 0;
    for (const auto& [p, k] : waiting) n += k;
    return n;
  }
};

ReleaseRunner::ReleaseRunner(const Config& config, int sensitive_extra, StateStore* store,
                             TransactionalProducer* producer, ReleaseMetricsExporter* metrics,
                             OutputTopology topology, DpPublisher* dp)
    : impl_(std::make_unique<Impl>(config, sensitive_extra, store, producer, metrics, topology, dp)) {}

ReleaseRunner::~ReleaseRunner() = default;

void ReleaseRunner::Submit(const std::vector<ShareRequest>& shares,
                           const std::function<PartitionState(int32_t)>& state_of) {
  impl_->Submit(shares, state_of);
}

bool ReleaseRunner::InFlight(int32_t partition) const { return impl_->InFlight(partition); }

std::vector<ReleaseOutcome> ReleaseRunner::Apply(const std::function<PartitionState(int32_t)>& state_of,
                                                 bool wait) {
  return impl_->Apply(state_of, wait);
}

uint64_t ReleaseRunner::waiting() const { return impl_->Waiting(); }

int64_t ReleaseRunner::BatchOpenSince() const { return impl_->batch_open_since.load(); }

}  // namespace vanon
