// The ingestion pipeline alone, in one process and without Kafka: the
// fleet's messages, generated up front, go through IngestPipeline::Process
// in poll-sized batches, as the consuming thread hands them over. What it
// measures is vanon's own work per event (parse, validate, HMAC and decode
// through the vehicle cache, coarsen the payload, buffer the event), apart
// from the consumer and the broker, so that it can run under
// `valgrind --tool=callgrind`, whose instruction counts repeat on a busy
// machine where wall-clock rates do not:
//
//   valgrind --tool=callgrind --collect-atstart=no
//       --toggle-collect='vanon::loadtest::(anonymous namespace)::Measured*'
//       build/loadtest/service/bench_ingest_pipeline --benchmark_filter=BM_IngestPipeline/200000/300000
//
// (one command line).
//
// As in bench_ingest_e2e, the first `warmup` events are not measured: they
// bring most of the fleet into the vehicle cache (the steady state of a
// service whose fleet it has seen before). Event time stays inside one
// 60 s epoch, so no release runs.
#include <benchmark/benchmark.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "vanon/config.h"
#include "vanon/fleet/fleet_generator.h"
#include "vanon/kafka/consumer.h"
#include "service/ingest/ingest_pipeline.h"
#include "vanon/state/state_store.h"
#include "in_process_setup.h"

namespace vanon::loadtest {
namespace {

constexpr int kPartitions = 64;
constexpr size_t kBatch = 5000;  // kafka.poll_batch_max of the e2e benchmarks
constexpr int64_t kEpochMs = 60000;

struct Input {
  std::vector<fleet::FleetMessage> messages;
  std::vector<kafka::InputMessage> batch;  // views into messages
  int64_t now_ms = 0;
};

// An hour ago, 1 s into an epoch, as bench_ingest_e2e produces it.
Input Generate(uint64_t events) {
  Input in;
  in.now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                  .count();
  const int64_t hour_ago = in.now_ms - 3600000;
  const std::unique_ptr<fleet::FleetGenerator> gen = BenchmarkFleet(hour_ago - hour_ago % kEpochMs + 1000, 100000);
  in.messages.reserve(events);
  for (uint64_t i = 0; i < events; ++i) in.messages.push_back(gen->Next());
  std::vector<int64_t> next_offset(kPartitions, 0);
  in.batch.reserve(events);
  for (const fleet::FleetMessage& m : in.messages) {
    const int32_t p = static_cast<int32_t>(m.vehicle_index % kPartitions);
    in.batch.push_back({p, next_offset[p]++, m.key, m.value});
  }
  return in;
}

void Feed(service::IngestPipeline& pipeline, const Input& in, size_t from, size_t to) {
  std::vector<kafka::InputMessage> batch;
  for (size_t i = from; i < to; i += kBatch) {
    batch.assign(in.batch.begin() + static_cast<std::ptrdiff_t>(i),
                 in.batch.begin() + static_cast<std::ptrdiff_t>(std::min(to, i + kBatch)));
    pipeline.Process(batch, in.now_ms);
  }
}

// Separate functions, so that callgrind can collect the measured part alone.
__attribute__((noinline)) void WarmUp(service::IngestPipeline& p, const Input& in, size_t n) { Feed(p, in, 0, n); }
__attribute__((noinline)) void Measured(service::IngestPipeline& p, const Input& in, size_t from, size_t to) {
  Feed(p, in, from, to);
}

void BM_IngestPipeline(benchmark::State& state) {
  const size_t warmup = static_cast<size_t>(state.range(0));
  const size_t measured = static_cast<size_t>(state.range(1));
  const Input in = Generate(warmup + measured);
  const std::string dir = (std::filesystem::temp_directory_path() / "vanon-bench-pipeline").string();
  for (auto _ : state) {
    state.PauseTiming();
    const config::Config config = DemoConfigWithEmptyState(dir, kEpochMs);
    {
      std::unique_ptr<state::StateStore> store = state::StateStore::Open(dir);
      service::IngestPipeline pipeline(config, "benchmark-hmac-key-0123456789abcdef", store.get(), nullptr, nullptr);
      WarmUp(pipeline, in, warmup);
      state.ResumeTiming();
      const int64_t resident0 = ResidentBytes();
      const double cpu0 = ThreadCpuSeconds();
      Measured(pipeline, in, warmup, warmup + measured);
      const double cpu = ThreadCpuSeconds() - cpu0;
      const int64_t resident = ResidentBytes() - resident0;
      state.PauseTiming();
      state.counters["cpu_s_per_M"] = cpu / static_cast<double>(measured) * 1e6;
      // Memory the measured events made resident, per event: what buffering
      // costs in fresh pages, which the kernel zeroes on first touch (in
      // bench_ingest_e2e the largest single cost, and the one that varies
      // most from machine to machine). Repeats where CPU time does not.
      state.counters["resident_bytes_per_event"] = static_cast<double>(resident) / static_cast<double>(measured);
      state.counters["buffered"] = static_cast<double>(pipeline.Totals().accepted);
    }
    std::filesystem::remove_all(dir);
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(measured));
}
BENCHMARK(BM_IngestPipeline)
    ->Args({200000, 1000000})
    ->Args({200000, 300000})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vanon::loadtest

BENCHMARK_MAIN();
