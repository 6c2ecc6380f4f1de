#include "vanon/vehicle/vin_decoder.h"

#include "vanon/vehicle/vin.h"
#include "yaml_error.h"

namespace vanon::fleet {

using yaml_util::Fail;
using yaml_util::LineOf;

namespace {

bool IsCode(std::string_view s, size_t length, bool allow_wildcard) {
  if (s.size() != length) return false;
  for (char c : s) {
    if (!base::IsVinChar(c) && !(allow_wildcard && c == '*')) return false;
  }
  return true;
}

ModelYearPolicy ParsePolicy(const YAML::Node& node, const std::string& source) {
  ModelYearPolicy policy;
  if (!node) return policy;
  if (!node.IsMap()) Fail(source, LineOf(node), "'model_year' must be a map");
  const std::string rule = yaml_util::RequireString(node, "rule", source);
  if (rule == "base_year") {
    policy.rule = ModelYearRule::kBaseYear;
    YAML::Node base = yaml_util::Require(node, "base_year", source);
    const long long year = yaml_util::ToInt(base, "base_year", source);
    if (year < 1980 || year > 2100) Fail(source, LineOf(base), "'base_year' must be in [1980, 2100]");
    policy.base_year = static_cast<int>(year);
  } else if (rule == "position7") {
    policy.rule = ModelYearRule::kPosition7;
  } else {
    Fail(source, LineOf(node["rule"]), "'rule' must be base_year or position7, not '" + rule + "'");
  }
  return policy;
}

VehicleModel ParseModel(const YAML::Node& node, const std::string& source) {
  if (!node.IsMap()) Fail(source, LineOf(node), "a model must be a map");
  VehicleModel model;
  model.vds = yaml_util::RequireString(node, "vds", source);
  if (!IsCode(model.vds, 5, true)) {
    Fail(source, LineOf(node["vds"]),
         "'vds' must be 5 VIN characters (0-9, A-Z without I, O, Q) or '*', got '" + model.vds + "'");
  }
  model.engine = yaml_util::RequireString(node, "engine", source);
  model.body = yaml_util::RequireString(node, "body", source);
  YAML::Node seats = yaml_util::Require(node, "seats", source);
  const long long n = yaml_util::ToInt(seats, "seats", source);
  if (n < 1 || n > 99) Fail(source, LineOf(seats), "'seats' must be in [1, 99]");
  model.seats = static_cast<int>(n);
  return model;
}

}  // namespace

bool VdsMatches(std::string_view pattern, std::string_view vds) {
  if (pattern.size() != vds.size()) return false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '*' && pattern[i] != vds[i]) return false;
  }
  return true;
}

VinDecoder VinDecoder::Load(const std::string& path) { return Parse(yaml_util::ReadFile(path), path); }

VinDecoder VinDecoder::Parse(std::string_view yaml_text, const std::string& source) {
  const YAML::Node root = yaml_util::ParseText(std::string(yaml_text), source);
  if (!root.IsMap()) Fail(source, LineOf(root), "the VIN table must be a YAML map");
  VinDecoder decoder;
  decoder.policy_ = ParsePolicy(root["model_year"], source);

  const YAML::Node list = yaml_util::Require(root, "manufacturers", source);
  if (!list.IsSequence() || list.size() == 0) {
    Fail(source, LineOf(list), "'manufacturers' must be a non-empty list");
  }
  for (const YAML::Node& entry : list) {
    if (!entry.IsMap()) Fail(source, LineOf(entry), "a manufacturer must be a map");
    Manufacturer maker;
    maker.wmi = yaml_util::RequireString(entry, "wmi", source);
    if (!IsCode(maker.wmi, 3, false)) {
      Fail(source, LineOf(entry["wmi"]), "'wmi' must be 3 VIN characters, got '" + maker.wmi + "'");
    }
    if (decoder.by_wmi_.count(maker.wmi) != 0) {
      Fail(source, LineOf(entry["wmi"]), "duplicate wmi '" + maker.wmi + "'");
    }
    maker.name = yaml_util::RequireString(entry, "name", source);
    const YAML::Node models = yaml_util::Require(entry, "models", source);
    if (!models.IsSequence() || models.size() == 0) {
      Fail(source, LineOf(models), "'models' must be a non-empty list");
    }
    for (const YAML::Node& m : models) {
      VehicleModel model = ParseModel(m, source);
      for (const VehicleModel& earlier : maker.models) {
        if (earlier.vds == model.vds) {
          Fail(source, LineOf(m["vds"]), "duplicate vds '" + model.vds + "' for wmi " + maker.wmi);
        }
      }
      maker.models.push_back(std::move(model));
    }
    decoder.by_wmi_.emplace(maker.wmi, decoder.manufacturers_.size());
    decoder.manufacturers_.push_back(std::move(maker));
  }
  return decoder;
}

const Manufacturer* VinDecoder::FindManufacturer(std::string_view wmi) const {
  auto it = by_wmi_.find(std::string(wmi));
  return it == by_wmi_.end() ? nullptr : &manufacturers_[it->second];
}

DecodedVehicle VinDecoder::Decode(std::string_view vin) const {
  DecodedVehicle out;
  out.attributes.reserve(kAttributeNames.size());
  const Manufacturer* maker = base::IsValidVin(vin) ? FindManufacturer(vin.substr(0, 3)) : nullptr;
  const VehicleModel* model = nullptr;
  if (maker != nullptr) {
    for (const VehicleModel& m : maker->models) {
      if (VdsMatches(m.vds, vin.substr(3, 5))) {
        model = &m;
        break;
      }
    }
  }
  const std::optional<int> year = model ? DecodeModelYear(vin, policy_) : std::nullopt;
  if (!year) {
    for (std::string_view name : kAttributeNames) {
      out.attributes.emplace_back(std::string(name), kUnknownAttribute);
    }
    return out;
  }
  out.known = true;
  out.attributes.emplace_back("manufacturer", maker->name);
  out.attributes.emplace_back("engine", model->engine);
  out.attributes.emplace_back("body", model->body);
  out.attributes.emplace_back("seats", std::to_string(model->seats));
  out.attributes.emplace_back("model_year", std::to_string(*year));
  return out;
}

}  // namespace vanon::fleet
