// Shared test input: a small config with one categorical and one numeric QI,
// and generated buffered events.
#ifndef VANON_TESTS_RELEASE_RELEASE_FIXTURE_H_
#define VANON_TESTS_RELEASE_RELEASE_FIXTURE_H_

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <algorithm>
#include <unistd.h>
#include <string>
#include <vector>

#include "vanon/config.h"
#include "vanon/ingest/buffered_event.h"

namespace vanon::release_test {

// engine: Petrol, Diesel under Combustion; BEV, PHEV under Electrified.
inline std::string WriteEngineHierarchy() {
  const auto path =
      std::filesystem::temp_directory_path() / ("vanon_release_engine_" + std::to_string(::getpid()) + ".csv");
  std::ofstream(path) << "Petrol;Combustion;*\nDiesel;Combustion;*\nBEV;Electrified;*\nPHEV;Electrified;*\n";
  return path.string();
}

inline config::Config TestConfig(const std::string& hierarchy) {
  config::Config c;
  config::QuasiIdentifier engine;
  engine.name = "engine";
  engine.hierarchy = hierarchy;
  config::QuasiIdentifier seats;
  seats.name = "seats";
  seats.type = config::QiType::kNumeric;
  seats.range_min = 2;
  seats.range_max = 9;
  seats.bin_width = 2;
  c.quasi_identifiers = {engine, seats};
  config::SensitiveConfig s;
  s.field = "payload.artist";
  s.aggregator = config::SensitiveAggregator::kMode;
  c.sensitive = s;
  c.payload.default_action = config::PayloadDefault::kDrop;
  config::PayloadField source;
  source.path = "source";
  config::PayloadField speed;
  speed.path = "speed";
  speed.transform = config::PayloadTransform::kBin;
  speed.width = 10;
  config::PayloadField gps;
  gps.path = "gps";
  gps.transform = config::PayloadTransform::kGpsGrid;
  gps.cell_meters = 500;
  c.payload.fields = {source, speed, gps};
  c.payload.time_bucket_seconds = 60;
  return c;
}

inline ingest::HmacToken Key(uint32_t vehicle) {
  ingest::HmacToken k{};
  std::mt19937_64 rng(vehicle * 7919ULL + 1);
  for (auto& b : k) b = static_cast<uint8_t>(rng());
  return k;
}

inline ingest::BufferedEvent Event(uint32_t vehicle, int64_t ts, std::string engine, std::string seats,
                                   std::optional<std::string> artist, std::string payload = "{}") {
  ingest::BufferedEvent e;
  e.vehicle_key = Key(vehicle);
  e.trip_key = Key(vehicle + 1000000);
  e.ts_ms = ts;
  e.event = "media_track_changed";
  e.qi_values = {std::move(engine), std::move(seats)};
  e.extras = {std::move(artist)};
  e.payload_json = std::move(payload);
  return e;
}

// `vehicles` vehicles with 1-3 events each in [t0, t0 + 60 s); vehicle v
// has a fixed engine/seats and mostly one artist out of `artists`.
inline std::vector<ingest::BufferedEvent> Generate(uint32_t first_vehicle, uint32_t vehicles, int64_t t0, uint64_t seed,
                                                   int artists = 6, const std::function<bool(uint32_t)>& active = {}) {
  static const char* kEngines[] = {"Petrol", "Diesel", "BEV", "PHEV"};
  std::mt19937_64 rng(seed);
  std::vector<ingest::BufferedEvent> out;
  for (uint32_t v = first_vehicle; v < first_vehicle + vehicles; ++v) {
    if (active && !active(v)) continue;
    const int n = 1 + static_cast<int>(rng() % 3);
    const std::string artist = "artist-" + std::to_string((v * 31) % static_cast<uint32_t>(artists));
    for (int i = 0; i < n; ++i) {
      const int64_t ts = t0 + static_cast<int64_t>(rng() % 60000);
      const std::string payload = "{\"artist\":\"" + artist +
                                  "\",\"source\":\"bt\",\"speed\":" + std::to_string(rng() % 180) +
                                  ",\"gps\":{\"lat\":48.1,\"lon\":11.5}}";
      out.push_back(Event(v, ts, kEngines[v % 4], std::to_string(2 + v % 8), artist, payload));
    }
  }
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

}  // namespace vanon::release_test

#endif  // VANON_TESTS_RELEASE_RELEASE_FIXTURE_H_
