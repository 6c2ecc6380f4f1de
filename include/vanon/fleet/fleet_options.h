// Knobs of the synthetic fleet generator.
#pragma once

#include <cstdint>
#include <string>

namespace vanon {

struct FleetOptions {
  uint64_t vehicles = 1000;
  uint64_t seed = 1;
  // Share of messages that are malformed; they cycle through the eight
  // DLQ reasons (fleet_generator.h).
  double invalid_fraction = 0.0;
  // too_large messages are just over this size: match the service's
  // input.max_message_bytes. Tests keep it small because the mock cluster
  // retains only about 5 MB per partition.
  size_t max_message_bytes = 1u << 20;
  // Event time of the first message, ms since the Unix epoch
  // (default 2025-11-22T10:00:00Z). Never the wall clock: output must
  // depend on the options only.
  int64_t start_ms = 1763805600000;
  // Simulated events per second; each Next() advances event time by 1/rate.
  double events_per_second = 1000.0;
  // At every churn epoch boundary the vehicles that had left come back and
  // each present vehicle leaves with this probability (0 <= churn < 1).
  double churn = 0.0;
  int64_t churn_epoch_ms = 10000;
  // Probability that a vehicle's favourite artist changes at an epoch
  // boundary, so per-vehicle modes are stable but not forever.
  double favourite_change = 0.01;
  // Path to a distribution YAML file; empty = FleetDistribution::Default().
  std::string distribution;
  // false: every vehicle draws its model independently (counts vary like a
  // real sample). true: counts follow the weights exactly (largest
  // remainder), e.g. config/vehicle/fleet-seed000.yaml with 15 vehicles is
  // seed 000 Table 4.5 itself.
  bool exact_shares = false;
};

}  // namespace vanon
