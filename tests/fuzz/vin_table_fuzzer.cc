// VinDecoder::Parse (the VIN decoding table, YAML) and Decode. Input: a
// table's text.
//
// Invariants: a refused table throws std::runtime_error
// "vin-table.yaml:<line>: ..." (never another exception, never a yaml-cpp
// message without its line); a loaded table decodes a VIN built from each
// of its models to that model (the first matching one of its manufacturer)
// and anything else to unknown, with the attributes in their fixed order.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "error_format.h"
#include "fuzz_support.h"
#include "fuzz_targets.h"
#include "vanon/vehicle/model_year.h"
#include "vanon/vehicle/vin.h"
#include "vanon/vehicle/vin_decoder.h"

namespace vanon::fuzz {

namespace {

constexpr const char* kSource = "vin-table.yaml";

void CheckUnknown(const fleet::DecodedVehicle& d) {
  Check(!d.known && d.attributes.size() == fleet::VinDecoder::kAttributeNames.size(), "unknown VIN: wrong shape");
  for (size_t i = 0; i < d.attributes.size(); ++i) {
    Check(d.attributes[i].first == fleet::VinDecoder::kAttributeNames[i] && d.attributes[i].second == "*",
          "unknown VIN: attributes are not all '*'");
  }
}

// A VIN of `maker` whose VDS matches `model`: wildcards become 'A', position
// 9 the check digit, position 10 year code 'L' (2020 under base year 2001).
std::string VinOf(const fleet::Manufacturer& maker, const fleet::VehicleModel& model) {
  std::string vin = maker.wmi + model.vds + "0L0123456";
  for (char& c : vin) {
    if (c == '*') c = 'A';
  }
  vin[8] = fleet::VinCheckDigit(vin);
  return vin;
}

void CheckModel(const fleet::VinDecoder& table, const fleet::Manufacturer& maker, const std::string& vin) {
  const fleet::VehicleModel* first = nullptr;
  for (const fleet::VehicleModel& m : maker.models) {
    if (fleet::VdsMatches(m.vds, std::string_view(vin).substr(3, 5))) {
      first = &m;
      break;
    }
  }
  Check(first != nullptr, "a model does not match its own VIN");
  const fleet::DecodedVehicle d = table.Decode(vin);
  Check(d.known && d.attributes.size() == 5, "a VIN of a listed model is not known");
  const std::optional<int> year = fleet::DecodeModelYear(vin, table.model_year_policy());
  Check(d.attributes[0].second == maker.name && d.attributes[1].second == first->engine &&
            d.attributes[2].second == first->body && d.attributes[3].second == std::to_string(first->seats) && year &&
            d.attributes[4].second == std::to_string(*year),
        "a VIN decodes to other attributes than its table entry");
}

}  // namespace

void FuzzVinTable(std::string_view input) {
  std::optional<fleet::VinDecoder> table;
  try {
    table = fleet::VinDecoder::Parse(input, kSource);
  } catch (const std::runtime_error& e) {
    CheckErrorLine(e.what(), kSource, LineCount(input));
    return;
  }
  Check(!table->manufacturers().empty(), "a loaded table has no manufacturer");
  for (const fleet::Manufacturer& maker : table->manufacturers()) {
    Check(table->FindManufacturer(maker.wmi) == &maker, "FindManufacturer does not find a listed WMI");
    for (const fleet::VehicleModel& model : maker.models) CheckModel(*table, maker, VinOf(maker, model));
  }
  for (std::string_view vin : {"", "WBA", "wba7c5e10l0123456", "WBA7C5E1IL0123456", "WBA7C5E10Z0123456"}) {
    CheckUnknown(table->Decode(vin));
  }
  const std::vector<std::string_view> vins = VinShapedTokens(input);
  for (size_t i = 0; i < vins.size() && i < 32; ++i) {  // a few: all would slow the fuzzer
    const fleet::DecodedVehicle d = table->Decode(vins[i]);
    if (!d.known) CheckUnknown(d);
  }
}

}  // namespace vanon::fuzz
