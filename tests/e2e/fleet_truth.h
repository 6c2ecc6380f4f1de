// Ground truth for messages of the synthetic fleet generator: which input
// partition a vehicle goes to, and the TruthMessage of a valid message.
#ifndef VANON_TESTS_E2E_FLEET_TRUTH_H_
#define VANON_TESTS_E2E_FLEET_TRUTH_H_

#include <cstdint>
#include <string_view>

#include "ground_truth.h"
#include "vanon/config.h"
#include "vanon/fleet/fleet_generator.h"

namespace vanon::e2e {

// A fixed spread of VINs over partitions (FNV-1a), so the test, not the
// producer's partitioner, knows where each vehicle went.
int32_t PartitionOfVin(std::string_view vin, int32_t partitions);

// `value` is the message as produced (with its seq); QIs come from the
// generator's own record of the vehicle, picked by the configured names.
// Throws std::runtime_error if `value` is not an event with a payload.
TruthMessage TruthOf(int32_t partition, const fleet::FleetMessage& message, std::string_view value,
                     const config::Config& config, const fleet::FleetVehicle& vehicle);

}  // namespace vanon::e2e

#endif  // VANON_TESTS_E2E_FLEET_TRUTH_H_
