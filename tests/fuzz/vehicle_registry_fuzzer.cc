// VehicleRegistry::LoadCsv (the registry CSV, key column "vin"). Input: the
// file's bytes.
//
// Invariants: a refused file throws std::runtime_error "<path>:<line>: ..."
// that never repeats a key (keys are usually VINs, and errors reach logs);
// a loaded registry answers every lookup with one value per attribute, "*"
// for an unknown key.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "error_format.h"
#include "fuzz_support.h"
#include "fuzz_targets.h"
#include "vanon/vehicle/vehicle_registry.h"

namespace vanon::fuzz {

namespace {

void CheckLookup(const fleet::VehicleRegistry& r, std::string_view key) {
  const fleet::DecodedVehicle d = r.Lookup(key);
  Check(d.attributes.size() == r.attribute_names().size(), "a lookup gives the wrong number of attributes");
  for (size_t i = 0; i < d.attributes.size(); ++i) {
    Check(d.attributes[i].first == r.attribute_names()[i], "a lookup names attributes out of order");
    if (!d.known) Check(d.attributes[i].second == "*", "an unknown key has an attribute other than '*'");
  }
}

}  // namespace

void FuzzVehicleRegistry(std::string_view input) {
  static const std::string path = ScratchDir() + "/registry.csv";
  WriteFile(path, input);
  std::optional<fleet::VehicleRegistry> registry;
  try {
    registry = fleet::VehicleRegistry::LoadCsv(path, "vin");
  } catch (const std::runtime_error& e) {
    CheckErrorLine(e.what(), path, LineCount(input));
    Check(!EchoesVin(std::string_view(e.what()).substr(path.size()), input), "a registry error repeats a VIN");
    return;
  }
  CheckLookup(*registry, "");
  CheckLookup(*registry, "\x01 no such key");
  // The first few VIN-shaped tokens are enough to find the rows' keys; all
  // of them (one per byte of a long run) would slow the fuzzer tenfold.
  const std::vector<std::string_view> vins = VinShapedTokens(input);
  for (size_t i = 0; i < vins.size() && i < 32; ++i) CheckLookup(*registry, vins[i]);
}

}  // namespace vanon::fuzz
