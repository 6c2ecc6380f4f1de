// Decodes the quasi-identifiers a VIN encodes, from a YAML table
// (config/vehicle/vin-table.yaml; format in docs/fleet.md):
//   WMI (positions 1-3)   -> manufacturer
//   VDS (positions 4-8)   -> engine, body, seats
//   position 10           -> model_year (see model_year.h)
// Replacing the VIN by what it encodes keeps utility without keeping the
// identifier (seed 000 section 4.4.2).
#ifndef VANON_VEHICLE_VIN_DECODER_H_
#define VANON_VEHICLE_VIN_DECODER_H_

#include <array>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "vanon/vehicle/decoded_vehicle.h"
#include "vanon/vehicle/model_year.h"

namespace vanon::fleet {

struct VehicleModel {
  std::string vds;  // 5 characters; '*' matches any character
  std::string engine;
  std::string body;
  int seats = 0;
};

struct Manufacturer {
  std::string wmi;  // 3 characters
  std::string name;
  std::vector<VehicleModel> models;  // first match wins
};

class VinDecoder {
 public:
  // Attribute names, in the order Decode() returns them.
  static constexpr std::array<std::string_view, 5> kAttributeNames = {"manufacturer", "engine", "body", "seats",
                                                                      "model_year"};

  // Reads a table. Throws std::runtime_error whose message starts with
  // "<path>:<line>: " for every syntax or content error.
  static VinDecoder Load(const std::string& path);
  // Same, from text; `source_name` stands in for the path in errors.
  static VinDecoder Parse(std::string_view yaml_text, const std::string& source_name);

  // A VIN with a table entry (WMI and VDS match, position 10 a year code)
  // gives known = true. Anything else (including invalid VINs, which the
  // ingest layer rejects before this point) gives known = false and "*"
  // for every attribute.
  DecodedVehicle Decode(std::string_view vin) const;

  const std::vector<Manufacturer>& manufacturers() const { return manufacturers_; }
  const ModelYearPolicy& model_year_policy() const { return policy_; }
  // The manufacturer with this WMI, or nullptr.
  const Manufacturer* FindManufacturer(std::string_view wmi) const;

 private:
  std::vector<Manufacturer> manufacturers_;
  std::unordered_map<std::string, size_t> by_wmi_;
  ModelYearPolicy policy_;
};

// True when `vds` (5 characters) matches `pattern` ('*' = any character).
bool VdsMatches(std::string_view pattern, std::string_view vds);

}  // namespace vanon::fleet

#endif  // VANON_VEHICLE_VIN_DECODER_H_
