// A small valid config and the stub files it references, written into a
// scratch directory. Tests derive invalid configs from it by replacement.

#ifndef VANON_TESTS_CONFIG_BASE_CONFIG_H_
#define VANON_TESTS_CONFIG_BASE_CONFIG_H_

#include <string>

#include "config_test_util.h"

namespace vanon::testing {

inline const char kBaseConfig[] = R"(kafka:
  bootstrap: "127.0.0.1:9092"
  properties: {security.protocol: PLAINTEXT}
vehicle:
  source: vin_table
  vin_table: vehicle/vin.yaml
quasi_identifiers:
  - {name: engine, hierarchy: h/engine.csv}
  - {name: seats, type: numeric, bins: {width: 2}, range: {min: 1, max: 9}}
  - {name: model_year, type: numeric, split: on_demand, range: {min: 1990, max: 2030}}
sensitive:
  field: payload.artist
  aggregator: mode
  missing_value: Radio
payload:
  default: drop
  fields:
    - {path: source, transform: keep}
    - {path: speed_kmh, transform: bin, width: 10}
    - {path: location, transform: gps_grid, cell_meters: 500}
privacy:
  model: m_invariance
  m: 5
  epoch: {length_seconds: 10}
dp:
  enabled: true
  # 259,200 releases of 10 s (+ 2 tree starts) in 30 days: 7.78 of 10, lasts.
  epsilon_per_release: 0.00003
  event_names: [trip_started, touchscreen_used]
  queries:
    - {name: events_by_engine, count: events, dimensions: [event, qi:engine]}
    - name: touch_by_engine
      count: events
      dimensions: [event, qi:engine]
      filter: {event: touchscreen_used}
  kpis:
    - {name: touch_share, numerator: touch_by_engine, denominator: events_by_engine}
state:
  dir: state
http:
  listen: 127.0.0.1:9464
)";

// Writes the stub files kBaseConfig references.
inline void WriteBaseStubs(const ScratchDir& dir) {
  dir.Write("vehicle/vin.yaml", "{}\n");
  dir.Write("h/engine.csv", "Diesel;Combustion;*\nEV;Electrified;*\n");
}

// `text` with the first occurrence of `from` replaced by `to`; fails the
// test if `from` is absent, so a stale replacement cannot pass silently.
inline std::string Replace(std::string text, const std::string& from, const std::string& to) {
  size_t pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << "replacement target missing: " << from;
  if (pos != std::string::npos) text.replace(pos, from.size(), to);
  return text;
}

}  // namespace vanon::testing

#endif  // VANON_TESTS_CONFIG_BASE_CONFIG_H_
