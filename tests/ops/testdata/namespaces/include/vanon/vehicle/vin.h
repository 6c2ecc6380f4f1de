// Fixture: include/vanon/vehicle/ belongs to the fleet area, not vanon::vehicle.

#ifndef VANON_TESTS_OPS_TESTDATA_NAMESPACES_INCLUDE_VANON_VEHICLE_VIN_H_
#define VANON_TESTS_OPS_TESTDATA_NAMESPACES_INCLUDE_VANON_VEHICLE_VIN_H_

namespace vanon::vehicle {
struct Vin {};
}  // namespace vanon::vehicle

#endif  // VANON_TESTS_OPS_TESTDATA_NAMESPACES_INCLUDE_VANON_VEHICLE_VIN_H_
