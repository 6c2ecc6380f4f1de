// The DP counts of one release share in window mode, alone: what
// DpPublisher::Compute does for an input partition under config/vanon.yaml's
// DP settings as shipped (hour-long DP windows, global counts, its three
// queries and one KPI: five window counters), over an epoch in the middle of
// a window: the events converted and grouped by vehicle, each vehicle's
// state looked up, its events counted and bounded by every counter, the
// window's changes written out.
//
// Arguments: N vehicles in the partition, M events per vehicle in the
// epoch (the fleet's, VINs decoded by the ingestion pipeline, which runs
// outside the measured function). For callgrind (instruction counts repeat
// on a busy machine where CPU seconds do not):
//
//   valgrind --tool=callgrind --collect-atstart=no
//       --toggle-collect='vanon::loadtest::(anonymous namespace)::MeasuredDp*'
//       build/loadtest/service/bench_dp_window --benchmark_filter=BM_DpWindow/6000/10/iterations:5
//
// (one command line).
#include <benchmark/benchmark.h>
#include <prometheus/registry.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "dp_digest.h"
#include "service/dp/dp_publisher.h"
#include "service/ingest/ingest_pipeline.h"
#include "vanon/config.h"
#include "vanon/fleet/fleet_generator.h"
#include "vanon/kafka/consumer.h"
#include "vanon/release/event_buffer.h"
#include "vanon/release/seed_stream.h"
#include "vanon/state/state_store.h"
#include "vanon/vehicle/vin_decoder.h"

namespace vanon::loadtest {
namespace {

constexpr int kPartitions = 16;
constexpr int32_t kPartition = 1;  // not the aggregation partition: it counts, publishes nothing
constexpr int64_t kEpochMs = 10000;
// 2026-01-01 UTC plus one epoch: an hour-aligned window's second epoch.
constexpr int64_t kEpochStartMs = 1767225600000 + kEpochMs;
constexpr char kHmacKey[] = "benchmark-hmac-key-0123456789abcdef";

config::Config VanonConfig(const std::string& state_dir) {
  std::filesystem::remove_all(state_dir);
  return config::LoadConfig(
      std::string(VANON_SOURCE_DIR) + "/config/vanon.yaml",
      {"state.dir=" + state_dir, "privacy.epoch.length_seconds=" + std::to_string(kEpochMs / 1000)});
}

// One epoch of the fleet's events of kPartition's `vehicles` vehicles, about
// `per_vehicle` each, buffered as the ingestion pipeline buffers them.
std::vector<ingest::BufferedEvent> BufferedEpoch(const config::Config& config, state::StateStore* store,
                                                 int64_t vehicles, int64_t per_vehicle) {
  const fleet::VinDecoder table =
      fleet::VinDecoder::Load(std::string(VANON_SOURCE_DIR) + "/config/vehicle/vin-table.yaml");
  fleet::FleetOptions fo;
  fo.vehicles = static_cast<uint64_t>(vehicles * kPartitions);
  fo.events_per_second = static_cast<double>(fo.vehicles * per_vehicle) * 1000.0 / kEpochMs;
  fo.start_ms = kEpochStartMs;
  fleet::FleetGenerator gen(fo, table);
  std::vector<fleet::FleetMessage> messages;
  const uint64_t total = fo.vehicles * static_cast<uint64_t>(per_vehicle);
  for (uint64_t i = 0; i < total; ++i) {
    fleet::FleetMessage m = gen.Next();
    if (m.vehicle_index % kPartitions == kPartition && m.ts_ms < kEpochStartMs + kEpochMs)
      messages.push_back(std::move(m));
  }
  std::vector<kafka::InputMessage> batch;
  int64_t offset = 0;
  for (const fleet::FleetMessage& m : messages) batch.push_back({kPartition, offset++, m.key, m.value});
  service::IngestPipeline pipeline(config, kHmacKey, store, nullptr, nullptr);
  pipeline.Process(batch, kEpochStartMs + kEpochMs + 60000);
  return release::ArrangeEpochEvents(pipeline.Events(kPartition).Take(kEpochStartMs + kEpochMs), kEpochStartMs).current;
}

// A separate function, so that callgrind can collect the measured part alone.
__attribute__((noinline)) service::DpPublisher::Result MeasuredDpCompute(
    service::DpPublisher& dp, const std::vector<ingest::BufferedEvent>& events) {
  release::ReleaseSeed seed{};
  release::SeedStream random(seed);
  return dp.Compute(kPartition, kEpochStartMs / kEpochMs, kEpochStartMs, kEpochStartMs + kEpochMs, events, random);
}

void BM_DpWindow(benchmark::State& state) {
  // Per process: two builds may be measured side by side.
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("vanon-bench-dp-window-" + std::to_string(getpid()))).string();
  const config::Config config = VanonConfig(dir);
  std::unique_ptr<state::StateStore> store = state::StateStore::Open(config.state.dir);
  const std::vector<ingest::BufferedEvent> events = BufferedEpoch(config, store.get(), state.range(0), state.range(1));
  prometheus::Registry registry;
  service::DpPublisher dp(config, kHmacKey, store.get(), registry);
  size_t meta = 0;
  DpDigest digest;
  // Nothing is applied: every iteration counts the same epoch into the
  // same (empty) window.
  for (auto _ : state) {
    const service::DpPublisher::Result r = MeasuredDpCompute(dp, events);
    if (!r.records.empty()) state.SkipWithError("the window closed: an epoch in its middle was meant");
    meta = r.meta.size();  // a record per vehicle counted, the list of their keys, the window's totals
    digest.Add(r);
  }
  state.counters["events"] = static_cast<double>(events.size());
  state.counters["meta_records"] = static_cast<double>(meta);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * events.size()));
  state.SetLabel(digest.Label());
  store.reset();
  std::filesystem::remove_all(dir);
}
// Fixed iterations: the same instruction counts under callgrind every run.
BENCHMARK(BM_DpWindow)->Args({6000, 10})->Args({600, 10})->Iterations(5)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vanon::loadtest

BENCHMARK_MAIN();
