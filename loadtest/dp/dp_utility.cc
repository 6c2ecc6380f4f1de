// vanon-dp-utility: relative error of the touchscreen KPI ("share of trips
// with touchscreen use", seed 000 Utility Demonstrator) published through
// vanon_dp, overall and per engine, for several epsilons and fleet sizes.
//
// Data: the fleet generator (vanon_fleet) with the Table 4.5 fleet mix
// (config/vehicle/fleet-seed000.yaml, exact shares: EV 8 : Gas 6 : Hybrid 1,
// so 15 vehicles are the thesis fleet) and its per-trip, per-engine
// touchscreen probabilities (defaults of FleetOptions, from Table 4.10). A
// "day" is vehicles x kDayMessagesPerVehicle messages, about 3 trips per
// vehicle. The true counts are what the generated events say: per engine,
// trips with at least one touchscreen_used event and all trips.
//
// Scenarios:
//   day:            one release of a day, C = 6 trips per vehicle and cell,
//                   L = 1 (the engine cell); 15, 1,000 and 100,000 vehicles;
//   thesis volume:  15 vehicles with about as many trips as Table 4.5
//                   (5,556), one release over all of them, C = 1000.
// The KPI per engine is noisy(touch trips) / noisy(trips), the release
// epsilon split in half between the two counts (DpRelease); the overall KPI
// sums the per-engine noisy counts (post-processing, no extra epsilon).
// Relative error = |noisy KPI - true KPI| / true KPI, averaged over runs.
//
// Usage: vanon-dp-utility [runs (default 100000, as Table 4.14)] [source dir]

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "vanon/dp/dp_release.h"
#include "vanon/dp/postprocess.h"
#include "vanon/fleet/fleet_generator.h"
#include "vanon/vehicle/vin_decoder.h"

namespace {

using vanon::dp::CountQuery;
using vanon::dp::CountUnit;
using vanon::dp::Dimension;
using vanon::dp::DpEvent;
using vanon::dp::DpPlan;
using vanon::dp::DpRelease;
using vanon::dp::Epsilon;
using vanon::dp::RatioQuery;
using vanon::dp::SeededRandomSource;

const std::vector<std::string> kEngines = {"EV", "Gas", "Hybrid"};
constexpr uint64_t kDayMessagesPerVehicle = 330;  // trips average ~107 messages

struct Vehicle {
  std::string engine;
  std::vector<bool> trips;  // per trip started: did it use the touchscreen
};

// Runs the generator for `messages` messages and records each vehicle's
// trips. A trip starts with trip_started (a vehicle's first message always
// is one); trips still open at the end count, as in a release cut at the
// end of the day.
std::vector<Vehicle> Generate(const std::string& source_dir, uint64_t vehicles, uint64_t messages) {
  static const vanon::fleet::VinDecoder table =
      vanon::fleet::VinDecoder::Load(source_dir + "/config/vehicle/vin-table.yaml");
  vanon::fleet::FleetOptions options;
  options.vehicles = vehicles;
  options.seed = 2025;
  options.distribution = source_dir + "/config/vehicle/fleet-seed000.yaml";
  options.exact_shares = true;
  options.events_per_second = static_cast<double>(messages) / 86400.0;  // one day of event time
  options.churn_epoch_ms = 86'400'000;                                  // no churn; skip the per-epoch sweeps
  vanon::fleet::FleetGenerator gen(options, table);
  std::vector<Vehicle> fleet(vehicles);
  for (uint64_t v = 0; v < vehicles; ++v) fleet[v].engine = gen.Vehicles()[v].decoded.attributes[1].second;
  constexpr std::string_view kEventKey = ",\"event\":\"";
  for (uint64_t i = 0; i < messages; ++i) {
    const vanon::fleet::FleetMessage& m = gen.Next();
    const size_t at = m.value.find(kEventKey);
    if (at == std::string::npos) continue;
    const size_t from = at + kEventKey.size();
    const std::string_view event = std::string_view(m.value).substr(from, m.value.find('"', from) - from);
    Vehicle& vehicle = fleet[m.vehicle_index];
    if (event == "trip_started") {
      vehicle.trips.push_back(false);
    } else if (event == "touchscreen_used" && !vehicle.trips.empty()) {
      vehicle.trips.back() = true;
    }
  }
  return fleet;
}

DpPlan KpiPlan(uint64_t max_trips) {
  Dimension engine;
  engine.kind = Dimension::Kind::kQi;
  engine.qi = "engine";
  engine.domain = kEngines;
  RatioQuery kpi;
  kpi.name = "touchscreen_trip_share_by_engine";
  kpi.numerator =
      CountQuery{"touch_trips", CountUnit::kTrips, {engine}, {{"event", "touchscreen_used"}}, {max_trips, 1}};
  kpi.denominator = CountQuery{"trips", CountUnit::kTrips, {engine}, {}, {max_trips, 1}};
  DpPlan plan;
  plan.ratios.push_back(kpi);
  plan.selection_key = 1;
  return plan;
}

struct Row {
  std::string label;
  double error[4][3];  // [overall, EV, Gas, Hybrid][epsilon index]; NaN: true KPI 0
};

void Evaluate(const std::string& label, const std::vector<Vehicle>& fleet, uint64_t max_trips, int runs,
              SeededRandomSource& rng, std::vector<Row>* rows) {
  const DpPlan plan = KpiPlan(max_trips);
  DpRelease release(plan, 1, 0, 86'400'000);
  std::vector<DpEvent> events;
  uint64_t most_trips = 0, fewest_trips = UINT64_MAX;
  for (size_t v = 0; v < fleet.size(); ++v) {
    events.clear();
    const std::string& engine = fleet[v].engine;
    for (size_t t = 0; t < fleet[v].trips.size(); ++t) {
      // Only what the two counts read: one event per trip, plus one
      // touchscreen_used for trips that had any.
      const std::string trip = std::to_string(t);
      events.push_back({"", trip, "trip_started", 0, {{"engine", engine}}});
      if (fleet[v].trips[t]) events.push_back({"", trip, "touchscreen_used", 0, {{"engine", engine}}});
    }
    most_trips = std::max<uint64_t>(most_trips, fleet[v].trips.size());
    fewest_trips = std::min<uint64_t>(fewest_trips, fleet[v].trips.size());
    release.AddVehicle("v" + std::to_string(v), events);
  }
  const auto& num = release.counters()[0];
  const auto& den = release.counters()[1];
  double true_kpi[4];
  uint64_t all_num = 0, all_den = 0;
  for (int e = 0; e < 3; ++e) {
    true_kpi[e + 1] = double(num.CountAt(e)) / double(den.CountAt(e));
    all_num += num.CountAt(e);
    all_den += den.CountAt(e);
  }
  true_kpi[0] = double(all_num) / double(all_den);
  std::printf("%s: %zu vehicles, %lu trips (%lu to %lu per vehicle), cut %lu\n", label.c_str(), fleet.size(),
              static_cast<unsigned long>(all_den), static_cast<unsigned long>(fewest_trips),
              static_cast<unsigned long>(most_trips),
              static_cast<unsigned long>(num.stats().cut() + den.stats().cut()));
  std::printf("  true KPI overall %.3f, EV %.3f (%lu/%lu), Gas %.3f (%lu/%lu), Hybrid %.3f (%lu/%lu)\n", true_kpi[0],
              true_kpi[1], static_cast<unsigned long>(num.CountAt(0)), static_cast<unsigned long>(den.CountAt(0)),
              true_kpi[2], static_cast<unsigned long>(num.CountAt(1)), static_cast<unsigned long>(den.CountAt(1)),
              true_kpi[3], static_cast<unsigned long>(num.CountAt(2)), static_cast<unsigned long>(den.CountAt(2)));

  Row row{label, {}};
  const char* epsilons[] = {"10", "1", "0.1"};
  for (int k = 0; k < 3; ++k) {
    double sum[4] = {};
    for (int run = 0; run < runs; ++run) {
      auto result = release.Publish(*Epsilon::Parse(epsilons[k]), rng);
      int64_t n_all = 0, d_all = 0;
      for (int e = 0; e < 3; ++e) {
        const auto& r = result->records[e];
        sum[e + 1] += std::abs(r.ratio - true_kpi[e + 1]) / true_kpi[e + 1];
        n_all += r.numerator;
        d_all += r.denominator;
      }
      sum[0] += std::abs(vanon::dp::RatioOf(n_all, d_all).value - true_kpi[0]) / true_kpi[0];
    }
    for (int q = 0; q < 4; ++q) row.error[q][k] = true_kpi[q] > 0 ? sum[q] / runs : NAN;
  }
  rows->push_back(row);
}

std::string Cell(const double e[3]) {
  std::string out;
  for (int k = 0; k < 3; ++k) {
    char buf[32];
    if (std::isnan(e[k])) {
      std::snprintf(buf, sizeof buf, "n/a");
    } else {
      std::snprintf(buf, sizeof buf, "%.3g", e[k]);
    }
    out += (k > 0 ? " / " : "") + std::string(buf);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::stoi(argv[1]) : 100'000;
  const std::string source_dir = argc > 2 ? argv[2] : VANON_SOURCE_DIR;
  SeededRandomSource rng(2025);
  std::vector<Row> rows;
  for (uint64_t n : {15ULL, 1'000ULL, 100'000ULL}) {
    const std::string label = "day, " + std::to_string(n) + " vehicles, C=6";
    Evaluate(label, Generate(source_dir, n, n * kDayMessagesPerVehicle), 6, runs, rng, &rows);
  }
  // Table 4.5 has 5,556 trips of 15 drivers: ~370 trips (~40,000 messages)
  // per vehicle.
  Evaluate("thesis volume, 15 vehicles, C=1000", Generate(source_dir, 15, 15 * 40'000), 1000, runs, rng, &rows);

  std::printf("\nmean relative error over %d runs (eps = 10 / 1 / 0.1)\n", runs);
  std::printf("| scenario | KPI overall | KPI EV | KPI Gas | KPI Hybrid |\n|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    std::printf("| %s |", r.label.c_str());
    for (int q = 0; q < 4; ++q) std::printf(" %s |", Cell(r.error[q]).c_str());
    std::printf("\n");
  }
  std::printf(
      "| seed 000 Table 4.14, 15 drivers | 0.007 / 0.07 / 0.57 | 0.01 / 0.12 / 0.79 | "
      "0.01 / 0.1 / 0.66 | 0.1 / 0.71 / 1.2 |\n");
  return 0;
}
