// Generator throughput. Target: >= 1,000,000 messages/s on one core, so
// the load generator is never the bottleneck of a service benchmark.
//   bench_fleet --benchmark_counters_tabular=true
// items_per_second is messages per second.
#include <benchmark/benchmark.h>

#include <string>

#include "vanon/fleet/fleet_generator.h"
#include "vanon/vehicle/vin_decoder.h"

namespace {

const vanon::fleet::VinDecoder& Table() {
  static const vanon::fleet::VinDecoder table =
      vanon::fleet::VinDecoder::Load(std::string(VANON_SOURCE_DIR) + "/config/vehicle/vin-table.yaml");
  return table;
}

// Args: vehicles, invalid fraction in per mille.
void BM_FleetNext(benchmark::State& state) {
  vanon::fleet::FleetOptions options;
  options.vehicles = static_cast<uint64_t>(state.range(0));
  options.invalid_fraction = static_cast<double>(state.range(1)) / 1000.0;
  options.churn = 0.05;
  options.events_per_second = 50000;
  vanon::fleet::FleetGenerator gen(options, Table());
  uint64_t bytes = 0;
  for (auto _ : state) {
    const vanon::fleet::FleetMessage& m = gen.Next();
    bytes += m.value.size();
    benchmark::DoNotOptimize(m.value.data());
  }
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["avg_bytes"] =
      benchmark::Counter(static_cast<double>(bytes) / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_FleetNext)->Args({1000, 0})->Args({100000, 0})->Args({100000, 10})->Args({1000000, 0});

// Building the fleet (VINs, decoding, favourites) is a one-off cost.
void BM_FleetBuild(benchmark::State& state) {
  vanon::fleet::FleetOptions options;
  options.vehicles = static_cast<uint64_t>(state.range(0));
  for (auto _ : state) {
    vanon::fleet::FleetGenerator gen(options, Table());
    benchmark::DoNotOptimize(gen.Vehicles().data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_FleetBuild)->Arg(100000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
