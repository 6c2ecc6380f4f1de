// Vehicle attributes from a registry CSV, the alternative to decoding the
// VIN: a header row naming the columns, one row per vehicle, one column
// holding the key (e.g. the VIN). The other columns are the attributes, in
// header order. Fields may be double-quoted (RFC 4180, "" for a quote).
#ifndef VANON_VEHICLE_VEHICLE_REGISTRY_H_
#define VANON_VEHICLE_VEHICLE_REGISTRY_H_

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "vanon/vehicle/decoded_vehicle.h"

namespace vanon::fleet {

class VehicleRegistry {
 public:
  // Throws std::runtime_error "<path>:<line>: ..." on an unreadable file,
  // a missing key column, a row with the wrong field count, an empty or
  // duplicate key, or an unterminated quote.
  static VehicleRegistry LoadCsv(const std::string& path, const std::string& key_column);

  // Attributes of the vehicle with this key; known = false and "*" for
  // every attribute when absent.
  DecodedVehicle Lookup(std::string_view key) const;

  const std::vector<std::string>& attribute_names() const { return names_; }
  size_t size() const { return rows_.size(); }

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::vector<std::string>> rows_;
};

}  // namespace vanon::fleet

#endif  // VANON_VEHICLE_VEHICLE_REGISTRY_H_
