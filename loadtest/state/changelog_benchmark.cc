// The local half of the state changelog's cost (the goal: a restore
// of 1,000,000 signatures in under 30 s):
//   BM_ReplacePartition: writing a restored partition (n signatures) into
//     RocksDB in one batch, after dropping what the partition held;
//   BM_ReleaseChanges: listing a release batch's changes (n signatures put)
//     for the changelog, on the release thread.
// Reading the changelog from Kafka is not measured here: the mock cluster
// keeps only about 5 MB per partition, far below 1,000,000 signatures.
//
//   build/loadtest/state/bench_state_changelog
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>
#include <vector>

#include "vanon/state/state_store.h"

namespace {

using vanon::state::ReleaseWrite;
using vanon::state::StateChange;
using vanon::state::StateStore;
using vanon::state::StoredSignature;

std::string Vehicle(uint64_t i) {
  std::string v(32, '\0');
  uint64_t x = i * 0x9e3779b97f4a7c15ULL + 1;
  for (size_t k = 0; k < v.size(); ++k) {
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ULL;
    v[k] = static_cast<char>(x >> 56);
  }
  return v;
}

std::string TempPath(const char* name) {
  return (std::filesystem::temp_directory_path() / (std::string("vanon-bench-") + name)).string();
}

// n signature puts, as a release batch would list them.
std::vector<StateChange> SignatureChanges(StateStore& store, int64_t n) {
  ReleaseWrite w(store);
  for (int64_t i = 0; i < n; ++i) {
    w.PutSignature(0, Vehicle(static_cast<uint64_t>(i)), StoredSignature{{1, 5, 9, 14, 20}, 3, 9});
  }
  return w.Changes();
}

void BM_ReplacePartition(benchmark::State& state) {
  const std::string path = TempPath("replace");
  std::filesystem::remove_all(path);
  auto store = StateStore::Open(path);
  const std::vector<StateChange> records = SignatureChanges(*store, state.range(0));
  for (auto _ : state) store->ReplacePartition(0, records);
  state.SetItemsProcessed(state.iterations() * state.range(0));
  store.reset();
  std::filesystem::remove_all(path);
}
BENCHMARK(BM_ReplacePartition)->Arg(10'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_ReleaseChanges(benchmark::State& state) {
  const std::string path = TempPath("changes");
  std::filesystem::remove_all(path);
  auto store = StateStore::Open(path);
  ReleaseWrite w(*store);
  for (int64_t i = 0; i < state.range(0); ++i) {
    w.PutSignature(0, Vehicle(static_cast<uint64_t>(i)), StoredSignature{{1, 5, 9, 14, 20}, 3, 9});
  }
  for (auto _ : state) benchmark::DoNotOptimize(w.Changes());
  state.SetItemsProcessed(state.iterations() * state.range(0));
  store.reset();
  std::filesystem::remove_all(path);
}
BENCHMARK(BM_ReleaseChanges)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
