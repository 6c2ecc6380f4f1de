#include "vanon/service/service.h"

#include <pthread.h>
#include <unistd.h>

#include <prometheus/registry.h>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

#include "changelog_writer.h"
#include "state_restorer.h"
#include "vanon/http/http_server.h"
#include "vanon/kafka/consumer.h"
#include "vanon/kafka/producer.h"
#include "vanon/kafka/transactional_producer.h"
#include "vanon/service/dp_partial_source.h"
#include "vanon/service/dp_publisher.h"
#include "vanon/service/ingest_metrics.h"
#include "vanon/service/ingest_pipeline.h"
#include "vanon/service/partition_guard.h"
#include "vanon/service/state_version.h"
#include "vanon/service/release_metrics.h"
#include "vanon/service/release_runner.h"
#include "vanon/state/state_store.h"

namespace vanon {

namespace {
int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch()).count();
}
int64_t SteadySeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}
// A loop that has not turned for this long is reported unhealthy.
constexpr int64_t kStallSeconds = 60;
// The input topic's partition count is looked up every this many metric
// updates (seconds): one metadata request, cheap, but not for every poll.
constexpr int64_t kPartitionCheckEvery = 10;

// transactional.id = <prefix>-<instance>. The instance must be stable across
// restarts of the same replica (so a restart fences its predecessor) and
// distinct between replicas: VANON_INSTANCE_ID (the Helm chart sets the pod
// name), else the host name.
std::string InstanceId() {
  if (const char* v = std::getenv("VANON_INSTANCE_ID"); v != nullptr && *v != '\0') return v;
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) == 0 && host[0] != '\0') return host;
  return "0";
}
}  // namespace

struct Service::Rep {
  explicit Rep(Config c) : config(std::move(c)) {}
  Config config;
  std::string hmac_key;
  std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();
  IngestMetrics metrics{*registry};
  ReleaseMetricsExporter release_metrics{*registry, config.privacy};

  std::atomic<bool> state_open{false};
  std::atomic<int> partitions{0};
  std::atomic<int64_t> heartbeat{SteadySeconds()};
  std::atomic<bool> dp_paused{false};
  // ReleaseRunner::BatchOpenSince(), copied by the consuming loop (which
  // owns the runner) so the health check never touches the runner.
  std::atomic<int64_t> release_batch_since{0};
  // The input topic's partition count differs from state's (PartitionGuard).
  std::atomic<bool> partitions_changed{false};
  std::atomic<uint64_t> consumed{0}, accepted{0}, rejected{0}, buffered{0};
  std::atomic<StateRestorer*> restorer{nullptr};  // for /readyz; null without the changelog
  mutable std::mutex url_mu;
  std::string url;
  ServiceStatus last_release;  // guarded by url_mu; only the last_* fields
  std::string partitions_detail;  // guarded by url_mu
};

Service::Service(Config config, std::string hmac_key) : rep_(std::make_unique<Rep>(std::move(config))) {
  rep_->hmac_key = std::move(hmac_key);
  RegisterBuildInfo(*rep_->registry);
}

Service::~Service() = default;

ServiceStatus Service::Status() const {
  ServiceStatus s;
  s.consumed = rep_->consumed.load();
  s.accepted = rep_->accepted.load();
  s.rejected = rep_->rejected.load();
  s.buffered = rep_->buffered.load();
  s.partitions = rep_->partitions.load();
  s.ready = rep_->state_open.load() && s.partitions > 0 && !rep_->partitions_changed.load();
  s.partitions_changed = rep_->partitions_changed.load();
  s.dp_paused = rep_->dp_paused.load();
  std::lock_guard<std::mutex> l(rep_->url_mu);
  const ServiceStatus& r = rep_->last_release;
  s.late = r.late;
  s.released = r.released;
  s.suppressed = r.suppressed;
  s.releases = r.releases;
  s.waiting = r.waiting;
  s.last_release = r.last_release;
  s.last_suppression_ratio = r.last_suppression_ratio;
  s.last_emd_max = r.last_emd_max;
  s.last_counterfeit_ratio = r.last_counterfeit_ratio;
  s.last_groups = r.last_groups;
  return s;
}

std::string Service::MetricsUrl() const {
  std::lock_guard<std::mutex> l(rep_->url_mu);
  return rep_->url.empty() ? "" : rep_->url + "/metrics";
}

int Service::Run(const std::atomic<bool>& stop) {
  // Named for top -H and perf; the main thread keeps the process's name.
  if (getpid() != gettid()) pthread_setname_np(pthread_self(), "vanon-consume");
  Rep& r = *rep_;
  const Config& c = r.config;
  HealthChecks checks;
  checks.healthy = [&r](std::string* detail) {
    int64_t idle = SteadySeconds() - r.heartbeat.load();
    if (idle > kStallSeconds) {
      *detail = "main loop stalled for " + std::to_string(idle) + " s";
      return false;
    }
    const int64_t since = r.release_batch_since.load();
    if (since > 0 && SteadySeconds() - since > r.config.http.release_stall_seconds) {
      *detail = "release batch open for " + std::to_string(SteadySeconds() - since) + " s";
      return false;
    }
    // Healthy (a restart would not help), but said: DP counts are paused.
    if (r.dp_paused.load()) *detail = "dp budget exhausted, DP counts paused";
    return true;
  };
  checks.ready = [&r](std::string* detail) {
    if (!r.state_open.load()) {
      *detail = "state not open";
      return false;
    }
    // Before the assignment check: a stopped instance may hold none.
    if (r.partitions_changed.load()) {
      std::lock_guard<std::mutex> l(r.url_mu);
      *detail = r.partitions_detail;
      return false;
    }
    if (StateRestorer* restorer = r.restorer.load()) {
      std::vector<int32_t> restoring = restorer->Restoring();
      if (!restoring.empty()) {
        *detail = "restoring partitions from the state changelog:";
        for (int32_t p : restoring) *detail += " " + std::to_string(p);
        return false;
      }
    }
    if (r.partitions.load() == 0) {
      *detail = "no input partitions assigned";
      return false;
    }
    return true;
  };
  HttpServer http(c.http.listen, r.registry, checks);
  {
    std::lock_guard<std::mutex> l(r.url_mu);
    r.url = http.url();
  }
  spdlog::info("http listening on {}", http.url());

  std::unique_ptr<StateStore> store = StateStore::Open(c.state.dir);
  MigrateStateVersion(store.get());
  uint64_t buffered = store->CountAllEvents();
  r.buffered = buffered;
  r.metrics.buffered.Set(static_cast<double>(buffered));
  r.state_open = true;
  spdlog::info("state open at {} with {} buffered events", c.state.dir, buffered);

  Producer dlq(c.kafka.bootstrap, c.kafka.properties, c.kafka.producer_properties);
  IngestPipeline pipeline(c, r.hmac_key, store.get(), &dlq, &r.metrics);
  const std::string txn_id = c.kafka.transactional_id_prefix + "-" + InstanceId();
  // The one start-up step that waits for the broker (up to 60 s when it is
  // unreachable): it watches `stop`, so SIGTERM is honoured within a second.
  std::unique_ptr<TransactionalProducer> producer;
  try {
    producer = std::make_unique<TransactionalProducer>(c.kafka.bootstrap, txn_id, c.kafka.properties,
                                                       c.kafka.producer_properties, 60000, &stop);
  } catch (const KafkaStartInterrupted& e) {
    spdlog::info("stopped during start-up: {}", e.what());
    return 0;
  }
  TransactionalProducer& out = *producer;
  spdlog::info("release producer ready (transactional.id {})", txn_id);
  OutputTopology topology;
  topology.input_partitions = out.PartitionCount(c.kafka.topics.input);
  PartitionGuard partition_guard(store.get(), topology.input_partitions);
  // Consumption stops for good (until a restart) once the count differs
  // from state's: the loop below then only serves rebalances and finishes
  // releases already in flight.
  auto note_partition_guard = [&] {
    if (!partition_guard.tripped() || r.partitions_changed.load()) return;
    {
      std::lock_guard<std::mutex> l(r.url_mu);
      r.partitions_detail = partition_guard.detail();
    }
    r.partitions_changed = true;
    r.metrics.partitions_changed.Set(1);
  };
  note_partition_guard();
  topology.anonymized_partitions = out.PartitionCount(c.kafka.topics.anonymized);
  topology.releases_partitions = out.PartitionCount(c.kafka.topics.releases);
  std::unique_ptr<DpPublisher> dp;
  if (c.dp.enabled) {
    topology.counts_partitions = out.PartitionCount(c.kafka.topics.counts);
    dp = std::make_unique<DpPublisher>(c, r.hmac_key, store.get(), *r.registry);
    if (dp->aggregating()) {
      if (out.PartitionCount(c.dp.aggregation.topic) < 1) {
        throw std::runtime_error("dp.aggregation.topic " + c.dp.aggregation.topic + " does not exist");
      }
      dp->SetAggregation(topology.input_partitions, NewKafkaPartialSource(c));
    }
  }
  // Destroyed before the state closes: its threads may still be computing.
  auto runner = std::make_unique<ReleaseRunner>(c, pipeline.layout().sensitive, store.get(), &out,
                                                &r.release_metrics, topology, dp.get());
  ReleaseRunner& releases = *runner;
  // Off by default: the state changelog (docs/state.md) restores a partition
  // on assignment and writes each release's state changes in its transaction.
  std::unique_ptr<ChangelogWriter> changelog;
  std::unique_ptr<StateRestorer> restorer;
  if (c.state.changelog.enabled) {
    const int32_t n = out.PartitionCount(c.state.changelog.topic);
    if (n != topology.input_partitions) {
      throw std::runtime_error("state changelog topic " + c.state.changelog.topic + " has " + std::to_string(n) +
                               " partitions; it needs as many as the input topic (" +
                               std::to_string(topology.input_partitions) + ")");
    }
    changelog = std::make_unique<ChangelogWriter>(c, store.get(), &out);
    releases.SetChangelog(changelog.get());
    restorer = std::make_unique<StateRestorer>(c, store.get(), *r.registry);
    r.restorer = restorer.get();
    spdlog::info("state changelog on: {}", c.state.changelog.topic);
  }
  int64_t last_commit = 0;
  for (int32_t p = 0; p < topology.input_partitions; ++p) {
    store->ScanReleasesNewestFirst(p, [&](int64_t, const ReleaseLogEntry& e) {
      if (e.status != ReleaseStatus::kCommitted) return true;
      last_commit = std::max(last_commit, e.committed_wall_ms);
      return false;
    });
  }
  if (last_commit > 0) r.release_metrics.RestoreLastRelease(last_commit);
  auto state_of = [&](int32_t p) {
    return ReleaseRunner::PartitionState{&pipeline.Clock(p), &pipeline.Progress(p), &pipeline.Events(p)};
  };
  auto note_outcomes = [&](const std::vector<ReleaseOutcome>& outcomes) {
    if (outcomes.empty()) return;
    r.heartbeat = SteadySeconds();
    if (dp) r.dp_paused = dp->budget_exhausted();
    std::lock_guard<std::mutex> l(r.url_mu);
    for (const ReleaseOutcome& o : outcomes) {
      r.last_release.last_release = std::max(r.last_release.last_release, o.release);
      if (o.metrics.tuples > 0) {
        r.last_release.last_suppression_ratio = o.metrics.suppression_ratio;
        r.last_release.last_emd_max = o.metrics.emd_max_equal;
        r.last_release.last_counterfeit_ratio = o.metrics.counterfeit_ratio;
        r.last_release.last_groups = o.metrics.groups;
      }
    }
  };
  // Set once the consumer exists; the assignment callback runs inside its Poll.
  std::function<int64_t(int32_t)> committed_offset;
  // Callbacks run inside librdkafka's poll: an exception must not unwind
  // through its C frames, so it is kept and rethrown after Poll returns.
  std::exception_ptr rebalance_error;
  Consumer consumer(
      c.kafka.bootstrap, c.kafka.group_id, c.kafka.topics.input,
      static_cast<size_t>(c.input.max_message_bytes), c.kafka.properties,
      c.kafka.consumer_properties,
      [&](int32_t p) -> std::optional<int64_t> {
        try {
          // A partition past the stored count: partitions were added. The
          // batch this poll returns is dropped, and the partition paused.
          if (p >= partition_guard.stored()) {
            partition_guard.Check(out.PartitionCount(c.kafka.topics.input));
            note_partition_guard();
          }
          if (restorer && restorer->Restore(p, committed_offset) && dp) dp->Forget(p);
          auto at = pipeline.ResumeOffset(p);
          pipeline.Clock(p).Resume(NowMs());
          pipeline.Events(p);  // read from state now rather than at the first batch
          spdlog::info("partition {} assigned, resuming at {}", p, at ? std::to_string(*at) : "earliest");
          return at;
        } catch (...) {
          if (!rebalance_error) rebalance_error = std::current_exception();
          return std::nullopt;
        }
      },
      [&](const std::vector<int32_t>& gone) {
        // Everything consumed so far is already committed to state: Process()
        // writes each batch atomically before the next poll. Shares in
        // flight are finished and applied while their clocks are still here.
        try {
          note_outcomes(releases.Apply(state_of, /*wait=*/true));
          releases.DropPrecomputed(state_of);
        } catch (...) {
          if (!rebalance_error) rebalance_error = std::current_exception();
        }
        pipeline.ForgetPartitions(gone);
        spdlog::info("{} partitions revoked", gone.size());
      });

  if (changelog) changelog->Attach(&consumer);
  committed_offset = [&consumer](int32_t p) { return consumer.CommittedOffset(p, 60000); };

  auto last_metrics = std::chrono::steady_clock::now() - std::chrono::seconds(10);
  int64_t partition_checks = 0;
  int exit_code = 0;
  try {
    while (!stop.load()) {
      const auto& batch = consumer.Poll(static_cast<size_t>(c.kafka.poll_batch_max), c.kafka.poll_timeout_ms);
      if (rebalance_error) std::rethrow_exception(rebalance_error);
      for (const LostInput& l : consumer.lost()) {
        r.metrics.input_lost_to_retention.Increment(static_cast<double>(l.to - l.from));
        spdlog::error("partition {}: {} input events (offsets {}..{}) were deleted by the broker's retention before "
                      "vanon read them; they are lost (vanon_input_lost_to_retention_total); consuming goes on at {}",
                      l.partition, l.to - l.from, l.from, l.to - 1, l.to);
      }
      if (partition_guard.tripped()) {
        // What was polled is dropped unrecorded: state's offsets still point
        // before it, so a restart (after the runbook's fix) reads it again.
        consumer.Pause(consumer.Assigned());
        r.heartbeat = SteadySeconds();
        r.release_batch_since = releases.BatchOpenSince();
        note_outcomes(releases.Apply(state_of, /*wait=*/false));
        r.partitions = static_cast<int>(consumer.Assigned().size());
        r.metrics.ready.Set(0);
        continue;
      }
      const int64_t now_ms = NowMs();
      pipeline.Process(batch, now_ms);
      r.heartbeat = SteadySeconds();
      r.release_batch_since = releases.BatchOpenSince();
      note_outcomes(releases.Apply(state_of, /*wait=*/false));
      std::vector<ShareRequest> closable;
      std::vector<int32_t> precompute_candidates;  // nothing in flight, nothing closable
      for (int32_t p : consumer.Assigned()) {
        pipeline.Progress(p);  // loaded, so Totals() covers every assigned partition
        EpochClock& clock = pipeline.Clock(p);
        clock.AdvanceIdle(now_ms);
        if (releases.InFlight(p)) continue;
        if (std::optional<int64_t> epoch = clock.NextClosable()) {
          closable.push_back({p, *epoch});
        } else {
          precompute_candidates.push_back(p);
        }
      }
      releases.Submit(closable, state_of);
      // Before the counters below move: a test that sees an event consumed
      // knows the precomputation it allowed has taken its events.
      releases.Precompute(precompute_candidates, state_of);
      PartitionProgress t = pipeline.Totals();
      {
        std::lock_guard<std::mutex> l(r.url_mu);
        r.last_release.late = t.late;
        r.last_release.released = t.released;
        r.last_release.suppressed = t.suppressed;
        r.last_release.releases = t.releases;
        r.last_release.waiting = releases.waiting();
      }
      r.consumed = t.consumed;
      r.accepted = t.accepted;
      r.rejected = t.rejected_total();
      r.buffered = t.accepted - t.late - t.released - t.suppressed;
      r.metrics.buffered.Set(static_cast<double>(r.buffered.load()));
      auto now = std::chrono::steady_clock::now();
      if (now - last_metrics >= std::chrono::seconds(1)) {
        last_metrics = now;
        if (++partition_checks % kPartitionCheckEvery == 0) {
          partition_guard.Check(out.PartitionCount(c.kafka.topics.input));
          note_partition_guard();
        }
        std::vector<int32_t> assigned = consumer.Assigned();
        r.partitions = static_cast<int>(assigned.size());
        int64_t sum = 0, max = 0;
        std::map<int32_t, int64_t> lag_by_partition;
        for (int32_t p : assigned) {
          int64_t hi = consumer.HighWatermark(p);
          int64_t next = pipeline.NextOffset(p);
          if (next < 0) next = std::max<int64_t>(consumer.LowWatermark(p), 0);
          int64_t lag = hi >= 0 ? std::max<int64_t>(hi - next, 0) : 0;
          sum += lag;
          max = std::max(max, lag);
          lag_by_partition[p] = lag;
        }
        r.metrics.SetPartitionLags(lag_by_partition);
        r.metrics.lag_sum.Set(static_cast<double>(sum));
        r.metrics.lag_max.Set(static_cast<double>(max));
        r.metrics.partitions.Set(static_cast<double>(assigned.size()));
        r.metrics.ready.Set(r.partitions.load() > 0 ? 1 : 0);
        r.metrics.state_bytes.Set(static_cast<double>(store->ApproximateBytes()));
      }
    }
    note_outcomes(releases.Apply(state_of, /*wait=*/true));
    spdlog::info("stopping: batch and releases in flight finished, closing consumer");
  } catch (const std::exception& e) {
    spdlog::error("fatal: {}", e.what());
    exit_code = 1;
  }
  consumer.Close();
  runner.reset();
  r.restorer = nullptr;
  r.partitions = 0;
  dlq.Flush(30000);
  store->Flush();
  r.state_open = false;
  store.reset();
  spdlog::info("state closed; exit {}", exit_code);
  return exit_code;
}

}  // namespace vanon
