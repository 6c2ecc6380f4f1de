// What an attribute source (VIN table or registry) says about one vehicle.
#ifndef VANON_VEHICLE_DECODED_VEHICLE_H_
#define VANON_VEHICLE_DECODED_VEHICLE_H_

#include <string>
#include <utility>
#include <vector>

namespace vanon::fleet {

// The value every attribute takes when the source does not know the
// vehicle: the root of its generalization hierarchy.
inline constexpr const char* kUnknownAttribute = "*";

struct DecodedVehicle {
  // False when the source has no entry for the vehicle; then every value is
  // kUnknownAttribute. Such vehicles are accepted and counted, not dropped.
  bool known = false;
  // (name, value) in the source's fixed attribute order.
  std::vector<std::pair<std::string, std::string>> attributes;
};

}  // namespace vanon::fleet

#endif  // VANON_VEHICLE_DECODED_VEHICLE_H_
