// Building the fleet: one vehicle per index, its VIN (valid, unique, from
// the table so it decodes to the drawn model), its ground truth and its
// initial simulation state.
#ifndef VANON_SRC_FLEET_FLEET_BUILDER_H_
#define VANON_SRC_FLEET_FLEET_BUILDER_H_

#include <cstdint>
#include <vector>

#include "artists.h"
#include "base/random.h"
#include "vanon/fleet/fleet_distribution.h"
#include "vanon/fleet/fleet_generator.h"
#include "vanon/vehicle/vin_decoder.h"
#include "vehicle_state.h"

namespace vanon::fleet::internal {

// Positions 11-17 number the vehicles: 33 plant codes x 10^6 serials.
inline constexpr uint64_t kMaxFleetVehicles = 33ull * 1000000ull;

// Throws std::runtime_error when the distribution asks for a model the
// table lacks, lists a known WMI as unknown, or the table would decode a
// generated VIN differently (wildcard order, model-year window).
void BuildFleet(uint64_t vehicles, bool exact_shares, const FleetDistribution& dist, const VinDecoder& table,
                const ArtistCatalog& artists, base::Random& rng, std::vector<FleetVehicle>* truth,
                std::vector<VehicleState>* state);

}  // namespace vanon::fleet::internal

#endif  // VANON_SRC_FLEET_FLEET_BUILDER_H_
