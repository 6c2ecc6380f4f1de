// The cost of sealing the state changelog and the DP partials: AES-256-GCM
// per record (seal/record_sealer.h) at the sizes changelog values have
// (signatures and waiting tuples: tens of bytes; buffered events and the
// release-log entry: hundreds; DP state and the sensitive dictionary: a few
// KB). bench_release_share seals the values of real shares and gives the
// cost per million input events (loadtest/changelog/README.md, "Sealing").
//   build/loadtest/changelog/bench_seal
#include <benchmark/benchmark.h>

#include <string>

#include "vanon/seal/record_sealer.h"

namespace vanon {
namespace {

const std::string kKey = std::string("\x00\x00\x00\x03\x03", 5) + std::string(32, 'h');

void BM_Seal(benchmark::State& state) {
  seal::RecordSealer sealer(seal::Keyring::Random("bench"));
  const std::string value(static_cast<size_t>(state.range(0)), 'v');
  for (auto _ : state) {
    std::string sealed = sealer.Seal({"vanon.state.changelog", 3, kKey}, value);
    benchmark::DoNotOptimize(sealed);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Seal)->Arg(48)->Arg(160)->Arg(600)->Arg(4096);

void BM_Open(benchmark::State& state) {
  seal::RecordSealer sealer(seal::Keyring::Random("bench"));
  const std::string sealed =
      sealer.Seal({"vanon.state.changelog", 3, kKey}, std::string(static_cast<size_t>(state.range(0)), 'v'));
  for (auto _ : state) {
    seal::Opened o = sealer.Open({"vanon.state.changelog", 3, kKey}, sealed);
    benchmark::DoNotOptimize(o);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Open)->Arg(48)->Arg(160)->Arg(600)->Arg(4096);

}  // namespace
}  // namespace vanon

BENCHMARK_MAIN();
