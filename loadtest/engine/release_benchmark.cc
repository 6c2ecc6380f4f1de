// One release of 100,000 and 1,000,000 tuples, 8 QIs, 50 sensitive values:
// the first release (all vehicles new) and a second one (most vehicles known).
// Set VANON_BENCH_SHARED_SIGNATURES=K to measure shared signatures.
// Prints time and the working memory of ComputeRelease (peak heap bytes
// above what the input already held, output included), per tuple.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "vanon/engine/release.h"

namespace {

// Counting allocator: every heap block is measured by malloc_usable_size, so
// the numbers include allocator rounding.
std::atomic<int64_t> g_live{0};
std::atomic<int64_t> g_peak{0};

void* Track(void* p) {
  if (p == nullptr) throw std::bad_alloc();
  const int64_t live = g_live += static_cast<int64_t>(malloc_usable_size(p));
  int64_t peak = g_peak.load();
  while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
  }
  return p;
}

void Untrack(void* p) {
  if (p != nullptr) g_live -= static_cast<int64_t>(malloc_usable_size(p));
  std::free(p);
}

}  // namespace

// The replaced operators below pair malloc with free; GCC cannot see that
// through the inlined helpers and warns about new/free pairs it imagines.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

void* operator new(size_t n) { return Track(std::malloc(n)); }
void* operator new[](size_t n) { return Track(std::malloc(n)); }
void operator delete(void* p) noexcept { Untrack(p); }
void operator delete[](void* p) noexcept { Untrack(p); }
void operator delete(void* p, size_t) noexcept { Untrack(p); }
void operator delete[](void* p, size_t) noexcept { Untrack(p); }

namespace vanon {
namespace {

uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Four categorical QIs (two-level trees of 8x8, 4x4, 16x2, 3x3 leaves) and
// four numeric ones (two split on demand, two in fixed bins).
engine::Schema BenchSchema() {
  std::vector<engine::QiAttribute> attrs;
  const int shapes[4][2] = {{8, 8}, {4, 4}, {16, 2}, {3, 3}};
  for (int a = 0; a < 4; ++a) {
    std::vector<std::vector<std::string>> rows;
    for (int i = 0; i < shapes[a][0]; ++i) {
      for (int j = 0; j < shapes[a][1]; ++j) {
        rows.push_back({"v" + std::to_string(i) + "_" + std::to_string(j), "g" + std::to_string(i), "*"});
      }
    }
    attrs.push_back(
        {"cat" + std::to_string(a),
         std::make_shared<engine::CategoricalHierarchy>(engine::CategoricalHierarchy::FromRows(rows, "bench")),
         {}});
  }
  attrs.push_back({"year", nullptr, {1990, 2029, 0}});
  attrs.push_back({"seats", nullptr, {1, 9, 0}});
  attrs.push_back({"power", nullptr, {40, 539, 10}});
  attrs.push_back({"region", nullptr, {0, 999, 50}});
  return engine::Schema(std::move(attrs));
}

engine::ReleaseInput BenchInput(size_t n) {
  const engine::Schema schema = BenchSchema();
  engine::ReleaseInput in;
  in.release_id = 1;
  in.params.m = 5;
  in.params.max_delay = 2;
  in.params.seed = 1;
  // VANON_BENCH_SHARED_SIGNATURES=20 measures config/vanon.yaml's
  // privacy.shared_signatures (docs/utility.md section 3b).
  if (const char* shared = std::getenv("VANON_BENCH_SHARED_SIGNATURES")) {
    in.params.shared_signatures = static_cast<uint32_t>(std::strtoul(shared, nullptr, 10));
  }
  in.tuples.resize(n);
  for (size_t i = 0; i < n; ++i) {
    engine::Tuple& t = in.tuples[i];
    t.vehicle.resize(32);  // HMAC-sized key
    uint64_t h = Mix(i);
    for (int b = 0; b < 4; ++b, h = Mix(h)) std::memcpy(&t.vehicle[static_cast<size_t>(b) * 8], &h, 8);
    t.qi.resize(8);
    for (size_t a = 0; a < 4; ++a) {
      t.qi[a] = static_cast<int32_t>(Mix(h + a) % schema.attribute(a).hierarchy->LeafCount());
    }
    t.qi[4] = 1990 + static_cast<int32_t>(Mix(h + 4) % 40);
    t.qi[5] = 1 + static_cast<int32_t>(Mix(h + 5) % 9);
    t.qi[6] = 40 + static_cast<int32_t>(Mix(h + 6) % 500);
    t.qi[7] = static_cast<int32_t>(Mix(h + 7) % 1000);
    // 50 values, mildly skewed: the top value holds about 6%.
    const uint64_t r = Mix(h + 8) % 1000;
    t.sensitive = r < 60 ? 0 : static_cast<engine::SensitiveId>(1 + (r - 60) % 49);
    t.events = 1 + static_cast<uint32_t>(Mix(h + 9) % 50);
  }
  return in;
}

// Runs `in` once per iteration and reports CPU through the framework, peak
// working memory per tuple and the release's metrics as counters.
void MeasureRelease(benchmark::State& state, const engine::Schema& schema, const engine::ReleaseInput& in) {
  const size_t n = in.tuples.size();
  double bytes_per_tuple = 0;
  engine::ReleaseMetrics metrics;
  for (auto _ : state) {
    const int64_t base = g_live.load();
    g_peak = base;
    {
      engine::ReleaseOutput out = ComputeRelease(schema, in);
      benchmark::DoNotOptimize(out.groups.data());
      metrics = out.metrics;
    }
    bytes_per_tuple = static_cast<double>(g_peak.load() - base) / static_cast<double>(n);
  }
  state.counters["tuples"] = static_cast<double>(n);
  state.counters["work_bytes_per_tuple"] = bytes_per_tuple;
  state.counters["ncp"] = metrics.ncp;
  state.counters["suppression"] = metrics.suppression_ratio;
  state.counters["groups"] = static_cast<double>(metrics.groups);
}

// First release: every vehicle is new.
void BM_Release(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const engine::Schema schema = BenchSchema();
  const engine::ReleaseInput in = BenchInput(n);
  MeasureRelease(state, schema, in);
}

// Second release, the steady state of the service: two thirds of the
// vehicles were published in the first release and keep their signatures
// (a seventh of all tuples changed value, some into conflicts), one third
// is new and fills counterfeit slots first.
void BM_KnownRelease(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0));
  const engine::Schema schema = BenchSchema();
  engine::ReleaseInput in = BenchInput(n);
  {
    const engine::ReleaseOutput first = ComputeRelease(schema, in);
    engine::ReleaseInput second = BenchInput(n);
    second.release_id = 2;
    for (size_t i = 0; i < n; ++i) {
      engine::Tuple& t = second.tuples[i];
      if (i % 3 == 0) {  // a different key: a new vehicle
        t.vehicle[0] = static_cast<char>(t.vehicle[0] ^ 0x5a);
        t.vehicle[9] = static_cast<char>(t.vehicle[9] ^ 0x11);
      }
      if (i % 7 == 0) t.sensitive = (t.sensitive + 1) % 50;
      if (i % 11 == 0) t.qi[4] = 1990 + (t.qi[4] - 1990 + 3) % 40;
    }
    for (const auto& [key, signature] : first.new_signatures) second.known_signatures.emplace(key, signature);
    in = std::move(second);
  }
  MeasureRelease(state, schema, in);
}

BENCHMARK(BM_Release)->Arg(100000)->Arg(1000000)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_KnownRelease)->Arg(100000)->Arg(1000000)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace vanon

BENCHMARK_MAIN();
