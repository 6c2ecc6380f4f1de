#include "vanon/seal/record_sealer.h"
#include "vanon/service/service.h"

#include <pthread.h>
#include <unistd.h>

#include <prometheus/registry.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "service/collector/changelog_writer.h"
#include "service/restore/state_restorer.h"
#include "vanon/http/http_server.h"
#include "vanon/kafka/consumer.h"
#include "vanon/kafka/internal_topics.h"
#include "vanon/kafka/producer.h"
#include "vanon/kafka/transactional_producer.h"
#include "service/dp/dp_partial_source.h"
#include "service/dp/dp_publisher.h"
#include "service/ingest/ingest_metrics.h"
#include "service/ingest/ingest_pipeline.h"
#include "service/store/partition_guard.h"
#include "service/store/state_version.h"
#include "service/task/partition_task.h"
#include "service/task/task_registry.h"
#include "service/release/release_metrics.h"
#include "service/release/release_runner.h"
#include "vanon/state/state_store.h"

namespace vanon::service {

namespace {
int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}
int64_t SteadySeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
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

// The aggregation partition's releases publish every partition's global DP
// windows, so its epochs must close even when it has no input of its own:
// its clock starts at wall time (EpochClock::StartWithoutEvents). Only this
// partition's: a clock started at wall time turns every later event with an
// older event time late (history replayed into a partition that had none),
// a risk taken only where every partition's global counts depend on it.
bool DrivesGlobalCounts(const config::Config& c, int32_t partition) {
  return c.dp.enabled && !c.dp.aggregation.topic.empty() && partition == c.dp.aggregation.partition;
}
}  // namespace

// Service::Run is the sequence of named steps below; each step is a member
// of Rep, because the health checks and Status() read what the steps set.
struct Service::Rep {
  explicit Rep(config::Config c) : config(std::move(c)) {}
  config::Config config;
  std::string hmac_key;
  // Seals what goes to internal topics; null when none is written.
  std::unique_ptr<seal::RecordSealer> sealer;
  std::shared_ptr<prometheus::Registry> registry = std::make_shared<prometheus::Registry>();
  IngestMetrics metrics{*registry};
  ReleaseMetricsExporter release_metrics{*registry, config.privacy};

  // Read by the HTTP thread (health) and by Status().
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
  std::atomic<StateRestorer*> restoring{nullptr};  // for /readyz; null without the changelog
  mutable std::mutex url_mu;
  std::string url;
  ServiceStatus last_release;     // guarded by url_mu; only the last_* fields
  std::string partitions_detail;  // guarded by url_mu

  // One run's parts, built by the steps in this order, torn down in reverse
  // by Close(). Only the consuming thread touches them.
  std::unique_ptr<state::StateStore> store;
  std::unique_ptr<kafka::Producer> dlq;
  // Every assigned partition's task: opened on assignment (or by the
  // pipeline at its first batch), closed only on revocation, here.
  std::unique_ptr<TaskRegistry> tasks;
  std::unique_ptr<IngestPipeline> pipeline;
  std::unique_ptr<kafka::TransactionalProducer> out;
  std::unique_ptr<kafka::TransactionalProducer> prepare_out;  // with the changelog: prepare records
  OutputTopology topology;
  std::unique_ptr<PartitionGuard> guard;
  std::unique_ptr<DpPublisher> dp;
  std::unique_ptr<ReleaseRunner> runner;
  std::unique_ptr<ChangelogWriter> changelog;
  std::unique_ptr<StateRestorer> restorer;
  std::unique_ptr<kafka::Consumer> consumer;
  // Callbacks run inside librdkafka's poll: an exception must not unwind
  // through its C frames, so it is kept and rethrown after Poll returns.
  std::exception_ptr rebalance_error;

  bool Healthy(std::string* detail) const;
  bool Ready(std::string* detail) const;
  void OpenState();
  bool ConnectProducer(const std::atomic<bool>& stop);
  void ReadTopology();
  void PrepareInternalTopics();
  void BuildReleasePath();
  void SubscribeToInput();
  int ConsumeUntil(const std::atomic<bool>& stop);
  void Close(int exit_code);

  // Steps of one turn of the consuming loop.
  void CountLostInput();
  void HoldWhilePartitionsChanged();
  void CloseEpochs(int64_t now_ms);
  void PublishTotals();
  void UpdateGauges(bool check_partition_count);

  // Rebalance callbacks (inside Poll).
  std::optional<int64_t> OnAssigned(int32_t p);
  void OnRevoked(const std::vector<int32_t>& gone);

  void NotePartitionGuard();
  void NoteOutcomes(const std::vector<ReleaseOutcome>& outcomes);
  void RestoreLastReleaseTime();
};

Service::Service(config::Config config, std::string hmac_key, std::optional<seal::Keyring> state_keys)
    : rep_(std::make_unique<Rep>(std::move(config))) {
  if (config::WritesInternalTopics(rep_->config)) {
    if (!state_keys) {
      throw std::invalid_argument(rep_->config.path +
                                  ": security.state_keys_env: the changelog or DP aggregation is on, "
                                  "so the state keys are required");
    }
    rep_->sealer = std::make_unique<seal::RecordSealer>(std::move(*state_keys));
  }
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

// The whole service, top-down: health endpoints, state, the release
// producer (the one step that waits for the broker), the output topology,
// the release path (DP, runner, state changelog), the input consumer, then
// the consuming loop until `stop`, then an orderly close.
int Service::Run(const std::atomic<bool>& stop) {
  // Named for top -H and perf; the main thread keeps the process's name.
  if (getpid() != gettid()) pthread_setname_np(pthread_self(), "vanon-consume");
  Rep& r = *rep_;
  http::HealthChecks checks;
  checks.healthy = [&r](std::string* detail) { return r.Healthy(detail); };
  checks.ready = [&r](std::string* detail) { return r.Ready(detail); };
  http::HttpServer http(r.config.http.listen, r.registry, checks);
  {
    std::lock_guard<std::mutex> l(r.url_mu);
    r.url = http.url();
  }
  spdlog::info("http listening on {}", http.url());

  r.OpenState();
  if (!r.ConnectProducer(stop)) {
    r.Close(0);
    return 0;
  }
  r.ReadTopology();
  r.PrepareInternalTopics();
  r.BuildReleasePath();
  // State this instance released without the changelog goes there before
  // any partition is assigned (docs/state.md, "Turning the changelog on").
  if (r.restorer) r.restorer->SeedHeldPartitions(r.topology.input_partitions);
  r.SubscribeToInput();
  const int exit_code = r.ConsumeUntil(stop);
  r.Close(exit_code);
  return exit_code;
}

bool Service::Rep::Healthy(std::string* detail) const {
  int64_t idle = SteadySeconds() - heartbeat.load();
  if (idle > kStallSeconds) {
    *detail = "main loop stalled for " + std::to_string(idle) + " s";
    return false;
  }
  const int64_t since = release_batch_since.load();
  if (since > 0 && SteadySeconds() - since > config.http.release_stall_seconds) {
    *detail = "release batch open for " + std::to_string(SteadySeconds() - since) + " s";
    return false;
  }
  // Healthy (a restart would not help), but said: DP counts are paused.
  if (dp_paused.load()) *detail = "dp budget exhausted, DP counts paused";
  return true;
}

bool Service::Rep::Ready(std::string* detail) const {
  if (!state_open.load()) {
    *detail = "state not open";
    return false;
  }
  // Before the assignment check: a stopped instance may hold none.
  if (partitions_changed.load()) {
    std::lock_guard<std::mutex> l(url_mu);
    *detail = partitions_detail;
    return false;
  }
  if (StateRestorer* rs = restoring.load()) {
    std::vector<int32_t> list = rs->Restoring();
    if (!list.empty()) {
      *detail = "restoring partitions from the state changelog:";
      for (int32_t p : list) *detail += " " + std::to_string(p);
      return false;
    }
  }
  if (partitions.load() == 0) {
    *detail = "no input partitions assigned";
    return false;
  }
  return true;
}

void Service::Rep::OpenState() {
  store = state::StateStore::Open(config.state.dir);
  MigrateStateVersion(store.get());
  uint64_t n = store->CountAllEvents();
  buffered = n;
  metrics.buffered.Set(static_cast<double>(n));
  state_open = true;
  spdlog::info("state open at {} with {} buffered events", config.state.dir, n);
  dlq = std::make_unique<kafka::Producer>(config.kafka.bootstrap, config.kafka.properties,
                                          config.kafka.producer_properties);
  tasks = std::make_unique<TaskRegistry>(store.get(), config.privacy.epoch);
  pipeline = std::make_unique<IngestPipeline>(config, hmac_key, store.get(), dlq.get(), &metrics, tasks.get());
}

// The one start-up step that waits for the broker (up to 60 s when it is
// unreachable): it watches `stop`, so SIGTERM is honoured within a second.
// False when stopped meanwhile.
bool Service::Rep::ConnectProducer(const std::atomic<bool>& stop) {
  const config::KafkaConfig& k = config.kafka;
  const std::string txn_id = k.transactional_id_prefix + "-" + InstanceId();
  try {
    out = std::make_unique<kafka::TransactionalProducer>(k.bootstrap, txn_id, k.properties, k.producer_properties,
                                                         60000, &stop);
  } catch (const kafka::KafkaStartInterrupted& e) {
    spdlog::info("stopped during start-up: {}", e.what());
    return false;
  }
  spdlog::info("release producer ready (transactional.id {})", txn_id);
  return true;
}

// Partition counts of the input and output topics. Consumption stops for
// good (until a restart) once the input's count differs from state's: the
// loop then only serves rebalances and finishes releases already in flight.
void Service::Rep::ReadTopology() {
  const config::KafkaTopics& t = config.kafka.topics;
  topology.input_partitions = out->PartitionCount(t.input);
  guard = std::make_unique<PartitionGuard>(store.get(), topology.input_partitions);
  NotePartitionGuard();
  topology.anonymized_partitions = out->PartitionCount(t.anonymized);
  topology.releases_partitions = out->PartitionCount(t.releases);
  if (config.dp.enabled) topology.counts_partitions = out->PartitionCount(t.counts);
}

// Kafka Streams creates its internal topics; so does vanon (docs/state.md
// "Topic configuration"): before anything asks for their metadata, since a
// metadata request naming a missing topic may auto-create it with the
// broker's default partition count. Checked even when not created here.
void Service::Rep::PrepareInternalTopics() {
  const config::Config& c = config;
  std::vector<kafka::InternalTopicSpec> topics;
  if (c.state.changelog.enabled) {
    kafka::InternalTopicSpec s;
    s.name = c.state.changelog.topic;
    s.purpose = "state.changelog.topic";
    s.partitions = topology.input_partitions;
    // Compaction only: a time- or size-retained changelog loses signatures.
    s.configs = {{"cleanup.policy", "compact"}, {"retention.ms", "-1"}, {"retention.bytes", "-1"}};
    topics.push_back(std::move(s));
  }
  if (c.dp.enabled && !c.dp.aggregation.topic.empty()) {
    kafka::InternalTopicSpec s;
    s.name = c.dp.aggregation.topic;
    s.purpose = "dp.aggregation.topic";
    s.exact_partitions = false;  // partials go to partition 0
    topics.push_back(std::move(s));
  }
  kafka::KafkaProperties admin = c.kafka.properties;  // the same client settings as the producers
  for (const auto& [k, v] : c.kafka.producer_properties) admin[k] = v;
  for (const std::string& line :
       EnsureInternalTopics(c.kafka.bootstrap, admin, topics, c.kafka.create_internal_topics)) {
    spdlog::info("internal {}", line);
  }
}

// DP counts, the release runner and, with the state changelog on
// (docs/state.md), the writer that puts each release's state changes in its
// transaction and the restorer that brings a partition's state on assignment.
void Service::Rep::BuildReleasePath() {
  const config::Config& c = config;
  if (c.dp.enabled) {
    dp = std::make_unique<DpPublisher>(c, hmac_key, store.get(), *registry);
    dp->SetSensitiveExtra(pipeline->layout().sensitive);
    if (dp->aggregating()) {
      dp->SetAggregation(topology.input_partitions, NewKafkaPartialSource(c, sealer.get()));
    }
  }
  runner = std::make_unique<ReleaseRunner>(c, pipeline->layout().sensitive, store.get(), out.get(), &release_metrics,
                                           topology, dp.get());
  if (dp && dp->aggregating()) runner->SetPartialSealer(sealer.get());
  if (c.state.changelog.enabled) {
    // The prepare records' own transactions (ChangelogWriter::PublishPrepared)
    // run while a release transaction may be open on `out`.
    const config::KafkaConfig& k = c.kafka;
    const std::string prepare_id = k.transactional_id_prefix + "-" + InstanceId() + "-prepare";
    prepare_out = std::make_unique<kafka::TransactionalProducer>(k.bootstrap, prepare_id, k.properties,
                                                                 k.producer_properties, 60000, nullptr);
    changelog = std::make_unique<ChangelogWriter>(c, store.get(), out.get(), sealer.get(), prepare_out.get());
    runner->SetChangelog(changelog.get());
    restorer = std::make_unique<StateRestorer>(c, store.get(), sealer.get(), changelog.get(), *registry);
    restorer->SetReleasesPartitions(topology.releases_partitions);
    restoring = restorer.get();
    spdlog::info("state changelog on: {}", c.state.changelog.topic);
  }
  RestoreLastReleaseTime();
}

// The "seconds since the last release" metric survives a restart.
void Service::Rep::RestoreLastReleaseTime() {
  int64_t last_commit = 0;
  for (int32_t p = 0; p < topology.input_partitions; ++p) {
    store->ScanReleasesNewestFirst(p, [&](int64_t, const state::ReleaseLogEntry& e) {
      if (e.status != state::ReleaseStatus::kCommitted) return true;
      last_commit = std::max(last_commit, e.committed_wall_ms);
      return false;
    });
  }
  if (last_commit > 0) release_metrics.RestoreLastRelease(last_commit);
}

void Service::Rep::SubscribeToInput() {
  const config::Config& c = config;
  consumer = std::make_unique<kafka::Consumer>(
      c.kafka.bootstrap, c.kafka.group_id, c.kafka.topics.input, static_cast<size_t>(c.input.max_message_bytes),
      c.kafka.properties, c.kafka.consumer_properties, [this](int32_t p) { return OnAssigned(p); },
      [this](const std::vector<int32_t>& gone) { OnRevoked(gone); });
  if (changelog) changelog->Attach(consumer.get());
}

// A partition arrives: restore its state from the changelog if it is ahead
// of the local copy, then resume after what state already holds.
std::optional<int64_t> Service::Rep::OnAssigned(int32_t p) {
  try {
    // A partition past the stored count: partitions were added. The batch
    // this poll returns is dropped, and the partition paused.
    if (p >= guard->stored()) {
      guard->Check(out->PartitionCount(config.kafka.topics.input));
      NotePartitionGuard();
    }
    auto committed_offset = [this](int32_t q) { return consumer->CommittedOffset(q, 60000); };
    if (restorer && restorer->Restore(p, committed_offset) && dp) dp->Forget(p);
    // After the restore: the task loads what state holds now.
    PartitionTask& task = pipeline->Open(p);
    auto at = pipeline->ResumeOffset(p);
    task.clock().Resume(NowMs());
    if (DrivesGlobalCounts(config, p)) task.clock().StartWithoutEvents(NowMs());
    spdlog::info("partition {} assigned, resuming at {}", p, at ? std::to_string(*at) : "earliest");
    return at;
  } catch (...) {
    if (!rebalance_error) rebalance_error = std::current_exception();
    return std::nullopt;
  }
}

// Shares in flight are finished and applied while their clocks are still
// here. The events consumed since a partition's last release live in memory
// only and are dropped: its next owner (this instance too, if it gets the
// partition back) reads them again from the resume offset. Locally the
// checkpoint spares this instance counting them again.
void Service::Rep::OnRevoked(const std::vector<int32_t>& gone) {
  try {
    NoteOutcomes(runner->Apply(/*wait=*/true));
    runner->DropPrecomputed();
    runner->ForgetPartitions(gone);
    pipeline->Checkpoint(gone);
  } catch (...) {
    if (!rebalance_error) rebalance_error = std::current_exception();
  }
  // A share still holding a task (after an error above) keeps it alive;
  // the partition's next assignment loads a new task from state.
  tasks->Close(gone);
  spdlog::info("{} partitions revoked", gone.size());
}

// One turn: poll, record, apply finished releases, close epochs, then the
// counters and, once a second, the gauges. Returns the exit code.
int Service::Rep::ConsumeUntil(const std::atomic<bool>& stop) {
  auto last_gauges = std::chrono::steady_clock::now() - std::chrono::seconds(10);
  int64_t gauge_updates = 0;
  try {
    while (!stop.load()) {
      const auto& batch =
          consumer->Poll(static_cast<size_t>(config.kafka.poll_batch_max), config.kafka.poll_timeout_ms);
      if (rebalance_error) std::rethrow_exception(rebalance_error);
      CountLostInput();
      if (guard->tripped()) {
        HoldWhilePartitionsChanged();
        continue;
      }
      const int64_t now_ms = NowMs();
      pipeline->Process(batch, now_ms);
      heartbeat = SteadySeconds();
      release_batch_since = runner->BatchOpenSince();
      NoteOutcomes(runner->Apply(/*wait=*/false));
      CloseEpochs(now_ms);
      PublishTotals();
      auto now = std::chrono::steady_clock::now();
      if (now - last_gauges >= std::chrono::seconds(1)) {
        last_gauges = now;
        UpdateGauges(++gauge_updates % kPartitionCheckEvery == 0);
      }
    }
    NoteOutcomes(runner->Apply(/*wait=*/true));
    runner->DropPrecomputed();
    pipeline->Checkpoint(consumer->Assigned());
    spdlog::info("stopping: batch and releases in flight finished, closing consumer");
    return 0;
  } catch (const std::exception& e) {
    spdlog::error("fatal: {}", e.what());
    return 1;
  }
}

void Service::Rep::CountLostInput() {
  for (const kafka::LostInput& l : consumer->lost()) {
    metrics.input_lost_to_retention.Increment(static_cast<double>(l.to - l.from));
    spdlog::error(
        "partition {}: {} input events (offsets {}..{}) were deleted by the broker's retention before "
        "vanon read them; they are lost (vanon_input_lost_to_retention_total); consuming goes on at {}",
        l.partition, l.to - l.from, l.from, l.to - 1, l.to);
  }
}

// What was polled is dropped unrecorded: state's offsets still point before
// it, so a restart (after the runbook's fix) reads it again.
void Service::Rep::HoldWhilePartitionsChanged() {
  consumer->Pause(consumer->Assigned());
  heartbeat = SteadySeconds();
  release_batch_since = runner->BatchOpenSince();
  NoteOutcomes(runner->Apply(/*wait=*/false));
  partitions = static_cast<int>(consumer->Assigned().size());
  metrics.ready.Set(0);
}

// Submits every partition whose next epoch can close; the others, with
// nothing in flight, may precompute their open epoch.
void Service::Rep::CloseEpochs(int64_t now_ms) {
  std::vector<ShareRequest> closable;
  std::vector<int32_t> precompute_candidates;
  for (int32_t p : consumer->Assigned()) {
    // Opened, so Totals() covers every assigned partition.
    release::EpochClock& clock = pipeline->Open(p).clock();
    clock.AdvanceIdle(now_ms);
    if (runner->InFlight(p)) continue;
    if (std::optional<int64_t> epoch = clock.NextClosable()) {
      closable.push_back({p, *epoch});
    } else {
      precompute_candidates.push_back(p);
    }
  }
  runner->Submit(closable, *tasks);
  // Before the counters move (PublishTotals): a test that sees an event
  // consumed knows the precomputation it allowed has taken its events.
  runner->Precompute(precompute_candidates, *tasks);
}

void Service::Rep::PublishTotals() {
  state::PartitionProgress t = pipeline->Totals();
  {
    std::lock_guard<std::mutex> l(url_mu);
    last_release.late = t.late;
    last_release.released = t.released;
    last_release.suppressed = t.suppressed;
    last_release.releases = t.releases;
    last_release.waiting = runner->waiting();
  }
  consumed = t.consumed;
  accepted = t.accepted;
  rejected = t.rejected_total();
  buffered = t.accepted - t.late - t.released - t.suppressed;
  metrics.buffered.Set(static_cast<double>(buffered.load()));
}

// Consumer lag per partition and in total, assignment and state size. The
// input's partition count is looked up only every kPartitionCheckEvery-th
// time: one metadata request, cheap, but not for every poll.
void Service::Rep::UpdateGauges(bool check_partition_count) {
  if (check_partition_count) {
    guard->Check(out->PartitionCount(config.kafka.topics.input));
    NotePartitionGuard();
  }
  std::vector<int32_t> assigned = consumer->Assigned();
  partitions = static_cast<int>(assigned.size());
  int64_t sum = 0, max = 0;
  std::map<int32_t, int64_t> lag_by_partition;
  for (int32_t p : assigned) {
    int64_t hi = consumer->HighWatermark(p);
    int64_t next = pipeline->NextOffset(p);
    if (next < 0) next = std::max<int64_t>(consumer->LowWatermark(p), 0);
    int64_t lag = hi >= 0 ? std::max<int64_t>(hi - next, 0) : 0;
    sum += lag;
    max = std::max(max, lag);
    lag_by_partition[p] = lag;
  }
  metrics.SetPartitionLags(lag_by_partition);
  metrics.lag_sum.Set(static_cast<double>(sum));
  metrics.lag_max.Set(static_cast<double>(max));
  metrics.partitions.Set(static_cast<double>(assigned.size()));
  metrics.ready.Set(partitions.load() > 0 ? 1 : 0);
  metrics.state_bytes.Set(static_cast<double>(store->ApproximateBytes()));
}

void Service::Rep::NotePartitionGuard() {
  if (!guard->tripped() || partitions_changed.load()) return;
  {
    std::lock_guard<std::mutex> l(url_mu);
    partitions_detail = guard->detail();
  }
  partitions_changed = true;
  metrics.partitions_changed.Set(1);
}

void Service::Rep::NoteOutcomes(const std::vector<ReleaseOutcome>& outcomes) {
  if (outcomes.empty()) return;
  heartbeat = SteadySeconds();
  if (dp) dp_paused = dp->budget_exhausted();
  std::lock_guard<std::mutex> l(url_mu);
  for (const ReleaseOutcome& o : outcomes) {
    last_release.last_release = std::max(last_release.last_release, o.release);
    if (o.metrics.tuples > 0) {
      last_release.last_suppression_ratio = o.metrics.suppression_ratio;
      last_release.last_emd_max = o.metrics.emd_max_equal;
      last_release.last_counterfeit_ratio = o.metrics.counterfeit_ratio;
      last_release.last_groups = o.metrics.groups;
    }
  }
}

// The consumer leaves the group first (its revocation applies what is in
// flight); the runner's threads stop before the state they write closes.
void Service::Rep::Close(int exit_code) {
  if (consumer) consumer->Close();
  runner.reset();
  restoring = nullptr;
  partitions = 0;
  if (dlq) dlq->Flush(30000);
  if (store) store->Flush();
  state_open = false;
  consumer.reset();
  restorer.reset();
  changelog.reset();
  prepare_out.reset();
  dp.reset();
  guard.reset();
  out.reset();
  pipeline.reset();
  dlq.reset();
  store.reset();
  spdlog::info("state closed; exit {}", exit_code);
}

}  // namespace vanon::service
