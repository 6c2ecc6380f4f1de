// The attribute mix of a synthetic fleet: which (engine, body, seats)
// combinations occur and how often, the model-year range, and the share of
// valid VINs deliberately missing from the decoding table.
//
// The built-in default scales up seed 000 Table 4.5 (15 vehicles, 9
// combinations) to 96% of the fleet and adds rare models (Hydrogen, 7-seat
// vans, ...) for the remaining 4%, so small groups exist to be suppressed
// or generalized. YAML format: docs/fleet.md.
#ifndef VANON_FLEET_FLEET_DISTRIBUTION_H_
#define VANON_FLEET_FLEET_DISTRIBUTION_H_

#include <string>
#include <string_view>
#include <vector>

namespace vanon::fleet {

struct ModelShare {
  std::string manufacturer;  // empty = any manufacturer with this model
  std::string engine;
  std::string body;
  int seats = 0;
  double weight = 0;  // relative; need not sum to 1
  int line = 0;       // where it was declared, for error messages
};

struct FleetDistribution {
  std::vector<ModelShare> models;
  int year_from = 2014;
  int year_to = 2025;
  // Share of vehicles whose VIN is valid but has a WMI from unknown_wmis.
  double unknown_fraction = 0.005;
  std::vector<std::string> unknown_wmis;
  std::string source;  // path, or "<built-in distribution>"

  // Throws std::runtime_error "<path>:<line>: ..." on any error.
  static FleetDistribution Load(const std::string& path);
  static FleetDistribution Parse(std::string_view yaml_text, const std::string& source_name);
  static FleetDistribution Default();
  // The YAML text of Default(), to copy and edit.
  static std::string_view DefaultYaml();
};

}  // namespace vanon::fleet

#endif  // VANON_FLEET_FLEET_DISTRIBUTION_H_
