// Per-vehicle simulation state of the generator, and the simulated area.
#ifndef VANON_SRC_FLEET_VEHICLE_STATE_H_
#define VANON_SRC_FLEET_VEHICLE_STATE_H_

#include <cstdint>

#include "vanon/vehicle/vin.h"

namespace vanon::fleet::internal {

// A city-sized area: 20 x 20 km around Munich's centre, in microdegrees.
inline constexpr int32_t kCentreLat = 48137154;
inline constexpr int32_t kCentreLon = 11576124;
inline constexpr int32_t kHalfLat = 89900;   // 10 km
inline constexpr int32_t kHalfLon = 134600;  // 10 km at 48 degrees north

// Kept small and free of pointers: it is touched once per message, at
// random, so it should cost one cache miss.
struct VehicleState {
  // Touchscreen use of the current trip.
  enum Touch : uint8_t { kNoTouch, kTouchPending, kTouched };

  char vin[base::kVinLength];  // copy of the ground truth's VIN
  // The one-byte fields fill the padding after the VIN (see static_assert).
  uint8_t soc_pct = 50;
  uint8_t touch_class = 0;  // index into the generator's touchscreen thresholds
  Touch touch = kNoTouch;
  bool electrified = false;
  bool in_trip = false;
  bool charging = false;
  bool present = true;
  uint64_t trip_id = 0;
  uint32_t trip_left = 0;
  uint32_t favourite = 0;  // index into the artist catalogue
  uint32_t odometer_km = 0;
  uint32_t trip_m = 0;
  int32_t lat = kCentreLat;
  int32_t lon = kCentreLon;
  int16_t speed_dkmh = 0;  // tenths of km/h
};
static_assert(sizeof(VehicleState) <= 64, "one cache line");

}  // namespace vanon::fleet::internal

#endif  // VANON_SRC_FLEET_VEHICLE_STATE_H_
