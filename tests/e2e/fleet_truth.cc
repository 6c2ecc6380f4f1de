#include "fleet_truth.h"

#include <simdjson.h>

#include <stdexcept>

namespace vanon::e2e {

int32_t PartitionOfVin(std::string_view vin, int32_t partitions) {
  uint32_t h = 2166136261u;
  for (char c : vin) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  return static_cast<int32_t>(h % static_cast<uint32_t>(partitions));
}

TruthMessage TruthOf(int32_t partition, const fleet::FleetMessage& message, std::string_view value,
                     const config::Config& config, const fleet::FleetVehicle& vehicle) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc, payload;
  std::string_view event;
  if (parser.parse(value.data(), value.size()).get(doc) != simdjson::SUCCESS ||
      doc["event"].get(event) != simdjson::SUCCESS || doc["payload"].get(payload) != simdjson::SUCCESS) {
    throw std::runtime_error("not an event with a payload: " + std::string(value));
  }
  TruthMessage t;
  t.partition = partition;
  t.vin = message.key;
  t.ts_ms = message.ts_ms;
  t.event = std::string(event);
  t.payload_json = simdjson::minify(payload);
  for (const config::QuasiIdentifier& qi : config.quasi_identifiers) {
    std::string v = "*";
    for (const auto& [name, raw] : vehicle.decoded.attributes) {
      if (name == qi.name) v = raw;
    }
    t.qi.push_back(std::move(v));
  }
  t.known = vehicle.decoded.known;
  return t;
}

}  // namespace vanon::e2e
