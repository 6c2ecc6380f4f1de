// A deterministic synthetic fleet: vehicles with decodable VINs, trips of
// events in the service's default input format (privacy-model.md section
// 1), and a configurable share of malformed messages that each name the
// DLQ reason the service must give them.
//
// Same options and VIN table -> byte-identical output on every platform:
// the generator uses its own xoshiro256** stream and integer arithmetic
// instead of <random> distributions, and never reads the clock.
//
// Driving it at a real rate is the caller's job: Next() only advances
// simulated event time by 1/events_per_second, e.g.
//   for (;;) { const FleetMessage& m = gen.Next(); sleep_until(m.ts_ms); produce(m); }
#ifndef VANON_FLEET_FLEET_GENERATOR_H_
#define VANON_FLEET_FLEET_GENERATOR_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vanon/fleet/fleet_options.h"
#include "vanon/vehicle/decoded_vehicle.h"

namespace vanon::fleet {

class VinDecoder;

// DLQ reason names, as the ingest layer spells them (docs/metrics.md).
inline constexpr std::array<std::string_view, 8> kFleetRejectReasons = {
    "broken_json", "missing_field", "wrong_type", "invalid_vin", "timestamp_out_of_range",
    "too_large",   "invalid_utf8",  "too_deep"};

struct FleetMessage {
  std::string key;             // the VIN (Kafka message key)
  std::string value;           // the JSON event, or a malformed body
  int64_t ts_ms = 0;           // simulated event time of this message (non-decreasing)
  uint32_t vehicle_index = 0;  // into FleetGenerator::Vehicles()
  // Set for malformed messages: the reason the service must give, one of
  // kFleetRejectReasons (points at static storage). For
  // timestamp_out_of_range the body's ts differs from ts_ms on purpose.
  std::optional<std::string_view> expected_reject;
};

// Ground truth for one vehicle, for end-to-end checks.
struct FleetVehicle {
  std::string vin;
  // Decoded through the table (known = false for deliberate unknowns).
  DecodedVehicle decoded;
  std::string favourite_artist;  // current favourite (it may change)
  uint32_t favourite_changes = 0;
};

class FleetGenerator {
 public:
  // Throws std::invalid_argument for bad options and std::runtime_error
  // when the distribution cannot be loaded or asks for a model the table
  // lacks. `table` is only used during construction.
  FleetGenerator(const FleetOptions& options, const VinDecoder& table);
  ~FleetGenerator();
  FleetGenerator(const FleetGenerator&) = delete;
  FleetGenerator& operator=(const FleetGenerator&) = delete;

  // The next message, in event-time order. The reference stays valid until
  // the next call; its buffers are reused so steady state does not allocate.
  const FleetMessage& Next();

  const std::vector<FleetVehicle>& Vehicles() const;
  uint64_t messages() const;  // Next() calls so far
  // The artist names media events draw from ("Radio" included).
  const std::vector<std::string>& Artists() const;

 private:
  class Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace vanon::fleet

#endif  // VANON_FLEET_FLEET_GENERATOR_H_
