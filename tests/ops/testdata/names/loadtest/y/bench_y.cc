// Fixture for scripts/check_names.py: a benchmark not named *_benchmark.cc.
#include <benchmark/benchmark.h>

void Y(benchmark::State&) {}
BENCHMARK(Y);
