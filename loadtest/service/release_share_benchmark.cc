// One input partition's releases alone, in one process and without Kafka:
// what a computing thread of the release runner does for a share
// (ComputeShare: tuples, engine, check, records, DP counts) and what the
// consuming thread does to apply it (the share's delta into a RocksDB write
// batch, committed), over the demo configuration with the release
// benchmark's 10 s epochs. The fleet is bench_release_e2e's (100,000
// vehicles, 100,000 events/s, 16 partitions), of which this is partition
// 0: about 6,250 vehicles and 62,500 events per epoch. The third argument
// is the fleet's size at the same event rate: with 1,000,000
// vehicles each sends about one event per epoch, and the cost per event
// is mostly the release's work per vehicle (the cost curve's largest fleet).
//
// The first `warmup` epochs are not measured: they are the first releases
// of a new fleet, which publish little and store every signature. The
// counters are CPU seconds per million input events of the measured
// epochs, of the compute and of the apply. Under callgrind (instruction
// counts repeat on a busy machine where CPU seconds do not):
//
//   valgrind --tool=callgrind --collect-atstart=no
//       --toggle-collect='vanon::loadtest::(anonymous namespace)::Measured*'
//       build/loadtest/service/bench_release_share --benchmark_filter=BM_ReleaseShare/2/2/100000
//
// (one command line).
//
// Besides, each measured share's apply batch is sealed as the state
// changelog's writer seals it (ChangelogWriter::ProduceChange: AES-256-GCM
// per value, bound to topic, partition and record key), outside the measured
// functions and the benchmark's timing: the changelog's records and the
// sealing's CPU seconds per million input events, in steady state (6
// warm-up epochs) and in the first releases of a new fleet (0).
#include <benchmark/benchmark.h>
#include <prometheus/registry.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "service/collector/changelog_writer.h"
#include "service/dp/dp_publisher.h"
#include "service/ingest/ingest_pipeline.h"
#include "service/share/release_share.h"
#include "service/store/cached_share_state.h"
#include "service/store/store_share_state.h"
#include "vanon/config.h"
#include "vanon/fleet/fleet_generator.h"
#include "vanon/kafka/consumer.h"
#include "vanon/release/epoch_clock.h"
#include "vanon/release/schema_from_config.h"
#include "vanon/seal/record_sealer.h"
#include "vanon/state/state_store.h"
#include "dp_digest.h"
#include "in_process_setup.h"

namespace vanon::loadtest {
namespace {

constexpr int kPartitions = 16;
constexpr int64_t kEpochMs = 10000;
constexpr int64_t kEventsPerSecond = 100000;
constexpr char kHmacKey[] = "benchmark-hmac-key-0123456789abcdef";

// Partition 0's messages of `epochs` epochs of the fleet.
struct Input {
  std::vector<fleet::FleetMessage> messages;
  std::vector<std::vector<kafka::InputMessage>> per_epoch;  // views into messages
  int64_t first_epoch = 0;
  int64_t now_ms = 0;
};

Input Generate(int epochs, uint64_t vehicles) {
  Input in;
  // Fixed times (2026-01-01 UTC), so that two runs give the same events and
  // callgrind the same counts; "now" is a minute after the last epoch.
  const int64_t start_ms = 1767225600000;
  in.now_ms = start_ms + epochs * kEpochMs + 60000;
  in.first_epoch = start_ms / kEpochMs;
  const std::unique_ptr<fleet::FleetGenerator> gen = BenchmarkFleet(start_ms, kEventsPerSecond, vehicles);
  const uint64_t total = static_cast<uint64_t>(epochs) * kEventsPerSecond * (kEpochMs / 1000);
  for (uint64_t i = 0; i < total; ++i) {
    fleet::FleetMessage m = gen->Next();
    if (m.vehicle_index % kPartitions == 0) in.messages.push_back(std::move(m));
  }
  in.per_epoch.resize(static_cast<size_t>(epochs));
  // Each message with its epoch's, by event time: a share is computed
  // right after its epoch's messages, so one of them left for the next
  // would be an older event no tuple owns (the service waits for the
  // watermark instead).
  int64_t offset = 0;
  for (const fleet::FleetMessage& m : in.messages) {
    const int64_t e = std::clamp<int64_t>((m.ts_ms - start_ms) / kEpochMs, 0, epochs - 1);
    in.per_epoch[static_cast<size_t>(e)].push_back({0, offset++, m.key, m.value});
  }
  return in;
}

// In nanoseconds: a share's sealing takes milliseconds, below rusage's tick.
double PreciseThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

// The service's parts for one partition, wired as service.cc wires them.
struct Partition {
  explicit Partition(const config::Config& c)
      : config(c),
        store(state::StateStore::Open(c.state.dir)),
        pipeline(c, kHmacKey, store.get(), nullptr, nullptr),
        schema(release::SchemaFromConfig(c.quasi_identifiers, c.sensitive)),
        payload(c.payload),
        share_state(store.get()),
        cached(&share_state, &pipeline.Open(0).release_state(), 0),
        dp(c, kHmacKey, store.get(), registry),
        checker(schema) {
    dp.SetSensitiveExtra(pipeline.layout().sensitive);
    ctx.config = &config;
    ctx.schema = &schema;
    ctx.sensitive_extra = pipeline.layout().sensitive;
    ctx.input_partitions = kPartitions;
    ctx.state = &cached;
    ctx.dp = dp.enabled() ? &dp : nullptr;
    ctx.payload = &payload;
  }
  config::Config config;
  std::unique_ptr<state::StateStore> store;
  service::IngestPipeline pipeline;
  engine::Schema schema;
  release::PayloadTransformer payload;
  service::StoreShareState share_state;
  // As the runner's computing threads read it: signatures and waiting
  // tuples from the partition task's memory.
  service::CachedShareState cached;
  prometheus::Registry registry;
  service::DpPublisher dp;
  service::PartitionChecker checker;
  service::ShareContext ctx;
};

service::ComputedShare Compute(Partition& p, int64_t epoch) {
  const release::EpochClock clock(p.config.privacy.epoch);
  release::ReleaseSeed seed{};
  seed.fill(static_cast<uint8_t>(epoch));
  return service::ComputeShare(p.ctx, 0, epoch, seed, false, p.pipeline.Events(0).Take(clock.EpochEnd(epoch)),
                               &p.checker);
}

// As the runner's apply: the delta into a write batch, committed, and
// into the task's release state; the checker moved; the events of waiting tuples back into the buffer, the
// consumed ones freed and their list recycled.
void Apply(Partition& p, service::ComputedShare* s) {
  state::ReleaseWrite w(*p.store);
  service::AddShareDelta(s->delta, &w);
  p.store->Commit(w);
  p.pipeline.Open(0).release_state().Apply(s->delta);
  p.checker.checker.Accept(std::move(s->verdict));
  for (release::KeyedEvent& e : s->remaining) p.pipeline.Events(0).Restore(std::move(e));
  s->remaining.clear();
  if (s->spent) p.pipeline.Events(0).Recycle(std::move(*s->spent));
  s->spent.reset();
}

// The changelog records of a share's apply batch (what the runner adds to
// it, the release-log entry, clock and progress, and the DP ledger: a few
// records per share, left out), each value sealed as the writer seals it.
struct SealCost {
  size_t records = 0, values = 0, value_bytes = 0;
  double cpu_s = 0;
};

void SealChangelog(Partition& p, const service::ComputedShare& s, seal::RecordSealer* sealer, SealCost* cost) {
  state::ReleaseWrite w(*p.store);
  service::AddShareDelta(s.delta, &w);
  const std::string& topic = p.config.state.changelog.topic;
  std::vector<std::pair<std::string, const std::string*>> values;
  const std::vector<state::StateChange> changes = w.Changes();
  for (const state::StateChange& c : changes) {
    ++cost->records;
    if (c.value) values.emplace_back(service::ChangelogKey(s.partition, c), &*c.value);
  }
  const double c0 = PreciseThreadCpuSeconds();
  for (const auto& [key, value] : values) {
    std::string sealed = sealer->Seal({topic, s.partition, key}, *value);
    benchmark::DoNotOptimize(sealed);
    cost->value_bytes += value->size();
  }
  cost->cpu_s += PreciseThreadCpuSeconds() - c0;
  cost->values += values.size();
}

// Separate functions, so that callgrind can collect the measured part alone.
__attribute__((noinline)) service::ComputedShare MeasuredCompute(Partition& p, int64_t epoch) {
  return Compute(p, epoch);
}
__attribute__((noinline)) void MeasuredApply(Partition& p, service::ComputedShare* s) { Apply(p, s); }

void BM_ReleaseShare(benchmark::State& state) {
  const int warmup = static_cast<int>(state.range(0));
  const int measured = static_cast<int>(state.range(1));
  const auto vehicles = static_cast<uint64_t>(state.range(2));
  const Input in = Generate(warmup + measured, vehicles);
  // Per process: two runs side by side (callgrind of two fleet sizes) must
  // not share a store.
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("vanon-bench-share-" + std::to_string(getpid()))).string();
  DpDigest dp_digest;  // of the measured shares' DP counts, over all iterations
  for (auto _ : state) {
    state.PauseTiming();
    const config::Config config = DemoConfigWithEmptyState(dir, kEpochMs);
    double compute_cpu = 0, apply_cpu = 0;
    size_t events = 0, published = 0;
    SealCost seal;
    {
      Partition p(config);
      seal::RecordSealer sealer(seal::Keyring::Random("bench"));
      for (int e = 0; e < warmup + measured; ++e) {
        p.pipeline.Process(in.per_epoch[static_cast<size_t>(e)], in.now_ms);
        const bool timed = e >= warmup;
        if (timed) {
          events += in.per_epoch[static_cast<size_t>(e)].size();
          state.ResumeTiming();
        }
        const double c0 = ThreadCpuSeconds();
        // Warm-up shares outside the Measured* functions: callgrind counts
        // the measured shares alone, as the counters do.
        service::ComputedShare s = timed ? MeasuredCompute(p, in.first_epoch + e) : Compute(p, in.first_epoch + e);
        const double c1 = ThreadCpuSeconds();
        if (!s.violations.empty()) state.SkipWithError(("share violates the check: " + s.violations[0]).c_str());
        if (timed) {
          MeasuredApply(p, &s);
        } else {
          Apply(p, &s);
        }
        const double c2 = ThreadCpuSeconds();
        if (timed) {
          state.PauseTiming();
          SealChangelog(p, s, &sealer, &seal);
          compute_cpu += c1 - c0;
          apply_cpu += c2 - c1;
          published += s.published_events;
          dp_digest.Add(s.dp);
        }
      }
    }
    state.counters["compute_cpu_s_per_M"] = compute_cpu / static_cast<double>(events) * 1e6;
    state.counters["apply_cpu_s_per_M"] = apply_cpu / static_cast<double>(events) * 1e6;
    state.counters["events_per_share"] = static_cast<double>(events) / measured;
    state.counters["published_ratio"] = static_cast<double>(published) / static_cast<double>(events);
    const double per_m = 1e6 / static_cast<double>(events);
    state.counters["changelog_records_per_M"] = static_cast<double>(seal.records) * per_m;
    state.counters["changelog_values_per_M"] = static_cast<double>(seal.values) * per_m;
    state.counters["changelog_value_bytes"] =
        static_cast<double>(seal.value_bytes) / static_cast<double>(std::max<size_t>(seal.values, 1));
    state.counters["seal_cpu_s_per_M"] = seal.cpu_s * per_m;
    std::filesystem::remove_all(dir);
    state.ResumeTiming();
  }
  state.SetLabel(dp_digest.Label());
}
BENCHMARK(BM_ReleaseShare)
    ->Args({2, 4, 100000})
    ->Args({2, 2, 100000})
    ->Args({6, 4, 100000})
    ->Args({0, 2, 100000})
    ->Args({6, 2, 10000})
    ->Args({6, 2, 100000})
    ->Args({6, 2, 1000000})
    ->Args({20, 2, 1000000})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vanon::loadtest

BENCHMARK_MAIN();
