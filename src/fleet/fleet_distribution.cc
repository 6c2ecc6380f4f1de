#include "vanon/fleet/fleet_distribution.h"

#include <cmath>

#include "vanon/vehicle/vin.h"
#include "vehicle/yaml_error.h"

namespace vanon::fleet {

using yaml_util::Fail;
using yaml_util::LineOf;

namespace {

// Seed 000 Table 4.5 (15 vehicles) scaled so its nine combinations make up
// 96% of the fleet (weight = vehicle count x 6.4), plus 4% rare models.
constexpr std::string_view kDefaultYaml = R"(# Default fleet distribution (docs/fleet.md).
model_years: {from: 2014, to: 2025}
unknown: {fraction: 0.005, wmis: [XTA, MA3, 9BW, LSV]}
models:
  # seed 000 Table 4.5, vehicle count x 6.4
  - {engine: EV, body: Sedan, seats: 2, weight: 25.6}
  - {engine: EV, body: SUV, seats: 4, weight: 6.4}
  - {engine: EV, body: SUV, seats: 5, weight: 12.8}
  - {engine: EV, body: SUV, seats: 7, weight: 6.4}
  - {engine: Gas, body: Sedan, seats: 2, weight: 12.8}
  - {engine: Gas, body: Long Sedan, seats: 2, weight: 12.8}
  - {engine: Gas, body: Long Sedan, seats: 4, weight: 6.4}
  - {engine: Gas, body: Long Sedan, seats: 5, weight: 6.4}
  - {engine: Hybrid, body: Long Sedan, seats: 5, weight: 6.4}
  # rare models, 4% together
  - {engine: Hydrogen, body: Sedan, seats: 5, weight: 1.0}
  - {engine: Diesel, body: Van, seats: 7, weight: 1.0}
  - {engine: Gas, body: Van, seats: 7, weight: 0.75}
  - {engine: Hybrid, body: SUV, seats: 7, weight: 0.75}
  - {engine: Diesel, body: Estate, seats: 5, weight: 0.5}
)";

}  // namespace

std::string_view FleetDistribution::DefaultYaml() { return kDefaultYaml; }

FleetDistribution FleetDistribution::Default() { return Parse(kDefaultYaml, "<built-in distribution>"); }

FleetDistribution FleetDistribution::Load(const std::string& path) { return Parse(yaml_util::ReadFile(path), path); }

FleetDistribution FleetDistribution::Parse(std::string_view text, const std::string& source) {
  const YAML::Node root = yaml_util::ParseText(std::string(text), source);
  if (!root.IsMap()) Fail(source, LineOf(root), "the distribution must be a YAML map");
  FleetDistribution d;
  d.source = source;

  if (const YAML::Node years = root["model_years"]) {
    if (!years.IsMap()) Fail(source, LineOf(years), "'model_years' must be a map");
    const long long from = yaml_util::ToInt(yaml_util::Require(years, "from", source), "from", source);
    const long long to = yaml_util::ToInt(yaml_util::Require(years, "to", source), "to", source);
    if (from < 1980 || to > 2100 || from > to) {
      Fail(source, LineOf(years), "'model_years' needs 1980 <= from <= to <= 2100");
    }
    d.year_from = static_cast<int>(from);
    d.year_to = static_cast<int>(to);
  }

  if (const YAML::Node unknown = root["unknown"]) {
    if (!unknown.IsMap()) Fail(source, LineOf(unknown), "'unknown' must be a map");
    const YAML::Node fraction = yaml_util::Require(unknown, "fraction", source);
    d.unknown_fraction = yaml_util::ToDouble(fraction, "fraction", source);
    if (!(d.unknown_fraction >= 0 && d.unknown_fraction <= 1)) {
      Fail(source, LineOf(fraction), "'fraction' must be in [0, 1]");
    }
    if (const YAML::Node wmis = unknown["wmis"]) {
      if (!wmis.IsSequence()) Fail(source, LineOf(wmis), "'wmis' must be a list");
      for (const YAML::Node& w : wmis) {
        const std::string wmi = w.IsScalar() ? w.Scalar() : std::string();
        bool ok = wmi.size() == 3;
        for (char c : wmi) ok = ok && base::IsVinChar(c);
        if (!ok) Fail(source, LineOf(w), "an unknown wmi must be 3 VIN characters");
        d.unknown_wmis.push_back(wmi);
      }
    }
    if (d.unknown_fraction > 0 && d.unknown_wmis.empty()) {
      Fail(source, LineOf(unknown), "'unknown.fraction' > 0 needs at least one wmi in 'wmis'");
    }
  }

  const YAML::Node models = yaml_util::Require(root, "models", source);
  if (!models.IsSequence() || models.size() == 0) {
    Fail(source, LineOf(models), "'models' must be a non-empty list");
  }
  for (const YAML::Node& m : models) {
    if (!m.IsMap()) Fail(source, LineOf(m), "a model share must be a map");
    ModelShare share;
    share.line = LineOf(m);
    if (const YAML::Node maker = m["manufacturer"]) {
      share.manufacturer = yaml_util::RequireString(m, "manufacturer", source);
    }
    share.engine = yaml_util::RequireString(m, "engine", source);
    share.body = yaml_util::RequireString(m, "body", source);
    const YAML::Node seats = yaml_util::Require(m, "seats", source);
    const long long n = yaml_util::ToInt(seats, "seats", source);
    if (n < 1 || n > 99) Fail(source, LineOf(seats), "'seats' must be in [1, 99]");
    share.seats = static_cast<int>(n);
    const YAML::Node weight = yaml_util::Require(m, "weight", source);
    share.weight = yaml_util::ToDouble(weight, "weight", source);
    if (!(share.weight > 0) || !std::isfinite(share.weight)) {
      Fail(source, LineOf(weight), "'weight' must be a positive number");
    }
    d.models.push_back(std::move(share));
  }
  return d;
}

}  // namespace vanon::fleet
