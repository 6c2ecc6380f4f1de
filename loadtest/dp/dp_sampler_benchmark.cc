// Cost of one exact discrete Laplace draw, per scale and random source.

#include <benchmark/benchmark.h>

#include "vanon/dp/discrete_laplace.h"
#include "vanon/dp/tree_counter.h"

namespace {

using vanon::dp::DiscreteLaplace;
using vanon::dp::Rational;

void BM_SampleSeeded(benchmark::State& state) {
  auto noise = DiscreteLaplace::WithScale(Rational{static_cast<uint64_t>(state.range(0)), 10});
  vanon::dp::SeededRandomSource rng(1);
  for (auto _ : state) benchmark::DoNotOptimize(noise->Sample(rng));
}
BENCHMARK(BM_SampleSeeded)->Arg(5)->Arg(30)->Arg(100)->Arg(10'000);  // b = 0.5, 3, 10, 1000

void BM_SampleOpenSsl(benchmark::State& state) {
  auto noise = DiscreteLaplace::WithScale(Rational{static_cast<uint64_t>(state.range(0)), 10});
  vanon::dp::OpenSslRandomSource rng;
  for (auto _ : state) benchmark::DoNotOptimize(noise->Sample(rng));
}
BENCHMARK(BM_SampleOpenSsl)->Arg(5)->Arg(100)->Arg(10'000);

void BM_TreeCounterAdd(benchmark::State& state) {
  vanon::dp::SeededRandomSource rng(2);
  auto tree = vanon::dp::TreeCounter::Create(30, 1, Rational{1, 1});
  for (auto _ : state) benchmark::DoNotOptimize(tree->Add(3, rng));
}
BENCHMARK(BM_TreeCounterAdd);

}  // namespace

BENCHMARK_MAIN();
