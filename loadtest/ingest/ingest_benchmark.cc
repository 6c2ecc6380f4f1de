// Throughput of the ingest hot path on one core: parse + validate, keyed
// hashing and the buffered-event encoding. Target: >= 1,000,000 parsed and
// validated events per second per core (docs/ingest.md records results).

#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "vanon/ingest/buffered_event.h"
#include "vanon/ingest/event_parser.h"
#include "vanon/ingest/keyed_hasher.h"

namespace vanon {
namespace {

constexpr std::int64_t kNowMs = 1763805600000;
constexpr int kPoolSize = 4096;

// Events shaped like `vanon loadgen` output: ~200 bytes, a payload of three
// fields. A pool of distinct events keeps branch predictors and caches
// honest compared with parsing one string over and over.
struct Pool {
  std::vector<std::string> keys;
  std::vector<std::string> values;
  std::size_t bytes = 0;
};

Pool MakePool(bool rfc3339) {
  static const char* kEvents[] = {"media_track_changed", "door_opened", "touchscreen_tap", "trip_started"};
  static const char* kArtists[] = {"Kid Cudi", "Radio", "Daft Punk", "Sigur R\\u00f3s", "Nina Simone"};
  static const char* kSources[] = {"bluetooth", "fm", "usb", "streaming"};
  const std::string vin_chars = "0123456789ABCDEFGHJKLMNPRSTUVWXYZ";
  std::mt19937_64 rng(42);
  Pool pool;
  for (int i = 0; i < kPoolSize; ++i) {
    std::string vin;
    for (int c = 0; c < 17; ++c) vin += vin_chars[rng() % vin_chars.size()];
    char trip[40];
    std::snprintf(trip, sizeof(trip), "%08x-%04x-4%03x-9%03x-%012llx", unsigned(rng()), unsigned(rng() & 0xffff),
                  unsigned(rng() & 0xfff), unsigned(rng() & 0xfff),
                  static_cast<unsigned long long>(rng() & 0xffffffffffffULL));
    const std::int64_t ts = kNowMs - static_cast<std::int64_t>(rng() % 3600000);
    std::string ts_text;
    if (rfc3339) {
      char buf[40];
      const std::int64_t sec_of_hour = (ts / 1000) % 3600;
      std::snprintf(buf, sizeof(buf), "\"2025-11-22T09:%02d:%02d.%03dZ\"", int(sec_of_hour / 60), int(sec_of_hour % 60),
                    int(ts % 1000));
      ts_text = buf;
    } else {
      ts_text = std::to_string(ts);
    }
    std::string json = "{\"vin\": \"" + vin + "\", \"trip_id\": \"" + trip + "\", \"ts\": " + ts_text +
                       ", \"event\": \"" + kEvents[rng() % 4] + "\", \"payload\": {\"artist\": \"" +
                       kArtists[rng() % 5] + "\", \"source\": \"" + kSources[rng() % 4] +
                       "\", \"volume\": " + std::to_string(rng() % 40) + "}}";
    pool.bytes += json.size();
    pool.keys.push_back(vin);
    pool.values.push_back(std::move(json));
  }
  return pool;
}

void RunParse(benchmark::State& state, const ingest::FieldMapping& mapping, bool rfc3339) {
  const Pool pool = MakePool(rfc3339);
  ingest::EventParser parser(mapping, ingest::ValidationLimits{});
  ingest::ParsedEvent event;
  ingest::Rejection rejection;
  std::size_t i = 0;
  std::int64_t rejected = 0;
  for (auto _ : state) {
    const bool ok = parser.Parse(pool.keys[i], pool.values[i], kNowMs, &event, &rejection);
    rejected += !ok;
    benchmark::DoNotOptimize(event.ts_ms);
    if (++i == pool.values.size()) i = 0;
  }
  if (rejected != 0) state.SkipWithError("fixture event was rejected");
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * (pool.bytes / kPoolSize)));
  state.counters["avg_event_bytes"] = double(pool.bytes) / kPoolSize;
}

void BM_ParseValidate(benchmark::State& state) { RunParse(state, ingest::FieldMapping{}, false); }
BENCHMARK(BM_ParseValidate);

void BM_ParseValidateRfc3339(benchmark::State& state) { RunParse(state, ingest::FieldMapping{}, true); }
BENCHMARK(BM_ParseValidateRfc3339);

void BM_ParseValidateWithExtras(benchmark::State& state) {
  ingest::FieldMapping mapping;
  mapping.extras = {"payload.artist", "payload.source"};
  RunParse(state, mapping, false);
}
BENCHMARK(BM_ParseValidateWithExtras);

void BM_KeyedHash(benchmark::State& state) {
  ingest::KeyedHasher hasher("benchmark-secret-key-of-32-bytes");
  const std::string vin = "WDCGG8HB0AF462890";
  for (auto _ : state) benchmark::DoNotOptimize(hasher.Hash(vin));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_KeyedHash);

ingest::BufferedEvent SampleBuffered() {
  ingest::BufferedEvent e;
  e.vehicle_key.fill(0x5a);
  e.trip_key.fill(0xa5);
  e.ts_ms = kNowMs;
  e.event = "media_track_changed";
  e.qi_values = {"Electrified", "SUV", "5", "2021"};
  e.extras = {std::string("Kid Cudi"), std::nullopt};
  e.payload_json = R"({"artist":"Kid Cudi","source":"bluetooth","volume":12})";
  return e;
}

void BM_EncodeBufferedEvent(benchmark::State& state) {
  const ingest::BufferedEvent e = SampleBuffered();
  std::string out;
  for (auto _ : state) {
    out.clear();
    EncodeBufferedEvent(e, &out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EncodeBufferedEvent);

void BM_DecodeBufferedEvent(benchmark::State& state) {
  std::string bytes;
  EncodeBufferedEvent(SampleBuffered(), &bytes);
  ingest::BufferedEvent e;
  for (auto _ : state) {
    if (!DecodeBufferedEvent(bytes, &e)) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(e.ts_ms);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DecodeBufferedEvent);

}  // namespace
}  // namespace vanon

BENCHMARK_MAIN();
