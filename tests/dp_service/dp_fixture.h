// Shared input of the DP publisher tests: a config with one categorical and
// one numeric QI and three queries plus a KPI, generated buffered events, a
// store with a publisher over it, and the count values of records.
#ifndef VANON_TESTS_DP_SERVICE_DP_FIXTURE_H_
#define VANON_TESTS_DP_SERVICE_DP_FIXTURE_H_

#include <unistd.h>

#include <prometheus/registry.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "vanon/config.h"
#include "vanon/ingest/buffered_event.h"
#include "vanon/release/seed_stream.h"
#include "service/dp/dp_publisher.h"
#include "service/store/store_share_state.h"  // src/service: AddShareDelta
#include "vanon/state/state_store.h"

namespace vanon::dp_test {

inline constexpr const char* kHmacKey = "dp-service-test-key";
inline constexpr int64_t kEpochMs = 60'000;

// A fresh directory per call, removed by the caller (TempDir below).
class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    static int n = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("vanon_dp_service_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string path() const { return path_.string(); }
  std::string Sub(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// engine leaves: Petrol, Diesel, BEV, PHEV (4 cells); seats 2..9 in bins of
// 2 (4 cells).
inline config::Config TestConfig(const TempDir& dir) {
  const std::string hierarchy = dir.Sub("engine.csv");
  std::ofstream(hierarchy) << "Petrol;Combustion;*\nDiesel;Combustion;*\nBEV;Electrified;*\nPHEV;Electrified;*\n";
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
  c.privacy.epoch.length_seconds = kEpochMs / 1000;
  config::DpConfig& dp = c.dp;
  dp.enabled = true;
  dp.epsilon_per_release = 0.1;
  dp.budget_epsilon = 0.3;
  dp.budget_period_days = 1;
  dp.max_per_cell = 1;
  dp.max_cells = 4;
  dp.event_names = {"touchscreen_used", "door_open"};
  dp.time_bucket_seconds = 30;
  dp.queries = {
      {"events_by_name", config::DpCount::kEvents, {"event", "time_bucket"}, {}},
      {"vehicles_by_engine", config::DpCount::kVehicles, {"qi:engine"}, {}},
      {"touch_vehicles_by_engine", config::DpCount::kVehicles, {"qi:engine"}, {{"event", "touchscreen_used"}}},
      {"trips_by_seats", config::DpCount::kTrips, {"qi:seats"}, {}},
  };
  dp.kpis = {{"touch_share_by_engine", "touch_vehicles_by_engine", "vehicles_by_engine"}};
  return c;
}

// `vehicles` vehicles with 4 events each in [start, start + kEpochMs).
inline std::vector<ingest::BufferedEvent> Events(int vehicles, int64_t start) {
  static const char* kEngines[] = {"Petrol", "Diesel", "BEV", "PHEV"};
  static const char* kSeats[] = {"2", "4", "5", "7", "9"};
  std::vector<ingest::BufferedEvent> out;
  for (int v = 0; v < vehicles; ++v) {
    for (int i = 0; i < 4; ++i) {
      ingest::BufferedEvent e;
      e.vehicle_key.fill(0);
      e.vehicle_key[0] = static_cast<uint8_t>(v);
      e.vehicle_key[1] = static_cast<uint8_t>(v >> 8);
      e.trip_key = e.vehicle_key;
      e.trip_key[31] = static_cast<uint8_t>(i / 2);
      e.ts_ms = start + (v * 997 + i * 13'001) % kEpochMs;
      e.event = (v + i) % 3 == 0 ? "touchscreen_used" : "door_open";
      e.qi_values = {kEngines[v % 4], kSeats[v % 5]};
      out.push_back(e);
    }
  }
  return out;
}

inline release::ReleaseSeed SeedOf(uint8_t b) {
  release::ReleaseSeed s;
  s.fill(b);
  return s;
}

// As the release runner does: the result's state changes into a share's
// delta, the delta into the release's write batch.
inline void ApplyToWrite(const service::DpPublisher& dp, int32_t partition, const service::DpPublisher::Result& r,
                         state::ReleaseWrite* w) {
  service::ShareDelta delta;
  delta.partition = partition;
  dp.Apply(r, &delta);
  service::AddShareDelta(delta, w);
}

// One service instance's DP side: a store and a publisher over it.
struct DpService {
  std::unique_ptr<state::StateStore> store;
  prometheus::Registry registry;
  std::unique_ptr<service::DpPublisher> dp;

  DpService(const config::Config& c, const std::string& dir, std::shared_ptr<rocksdb::FileSystem> fs = nullptr)
      : store(state::StateStore::Open(dir, std::move(fs))) {
    dp = std::make_unique<service::DpPublisher>(c, kHmacKey, store.get(), registry);
  }

  // What the runner does after Compute: apply, commit, then Committed().
  void Commit(int32_t partition, const service::DpPublisher::Result& r) {
    state::ReleaseWrite w(*store);
    ApplyToWrite(*dp, partition, r, &w);
    store->Commit(w);
    dp->Committed(r);
  }
};

// (query, cell JSON, mechanism) -> noisy value of each count record before
// clamping ("unclamped" when present, else "value"): what sums add.
inline std::map<std::string, int64_t> Values(const std::vector<std::string>& records) {
  static const std::regex kRecord(
      R"re("query":"([^"]+)","cell":(\{[^}]*\}),"kind":"count","value":(-?\d+)(,"unclamped":(-?\d+))?.*"mechanism":"([^"]+)")re");
  std::map<std::string, int64_t> out;
  for (const std::string& r : records) {
    std::smatch m;
    if (!std::regex_search(r, m, kRecord)) continue;
    const std::string value = m[5].matched ? m[5].str() : m[3].str();
    out[m[1].str() + m[2].str() + m[6].str()] = std::stoll(value);
  }
  return out;
}

}  // namespace vanon::dp_test

#endif  // VANON_TESTS_DP_SERVICE_DP_FIXTURE_H_
