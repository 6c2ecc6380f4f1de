// Cost of StateStore::Commit(ReleaseWrite&) with and without the WAL fsync,
// for the two batches the release loop syncs before a Kafka
// transaction commits:
//   BM_Prepare: one epoch's prepare batch, a release-log entry and the
//               clock record for each of 16 partitions (one sync per epoch);
//   BM_LedgerCharge: one partition's DP ledger record (one sync per share,
//               two when the running totals start over).
// The state directory is under $TMPDIR (default /tmp): run it on the disk the
// service's state.dir uses, or the number says little.
//   build/loadtest/state/bench_state_commit
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "vanon/state/state_store.h"

namespace vanon {
namespace {

std::string MakeDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "vanon-bench-commit-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  return tmpl;
}

state::Durability Of(const benchmark::State& state) {
  return state.range(0) ? state::Durability::kMachineCrash : state::Durability::kProcessCrash;
}

void BM_Prepare(benchmark::State& state) {
  const std::string dir = MakeDir();
  {
    auto store = state::StateStore::Open(dir);
    state::ReleaseLogEntry e;
    e.seed.fill(7);
    e.readback_offset = 123456;
    const std::string clock(40, 'c');
    int64_t release = 0;
    for (auto _ : state) {
      state::ReleaseWrite w(*store);
      for (int32_t p = 0; p < 16; ++p) {
        w.PutRelease(p, release, e);
        w.PutMeta(p, "clock", clock);
      }
      store->Commit(w, Of(state));
      ++release;
    }
  }
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_Prepare)->Arg(0)->Arg(1)->ArgName("sync")->Unit(benchmark::kMicrosecond);

void BM_LedgerCharge(benchmark::State& state) {
  const std::string dir = MakeDir();
  {
    auto store = state::StateStore::Open(dir);
    const std::string record(24 * 100, 'l');  // a full window of entries, the defaults' most
    for (auto _ : state) {
      state::ReleaseWrite w(*store);
      w.PutMeta(3, "dp_ledger", record);
      store->Commit(w, Of(state));
    }
  }
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_LedgerCharge)->Arg(0)->Arg(1)->ArgName("sync")->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace vanon

BENCHMARK_MAIN();
