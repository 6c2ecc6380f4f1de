#include "vanon/service/qi_resolver.h"

#include <cstdint>
#include <stdexcept>

#include "vanon/vehicle/decoded_vehicle.h"
#include "vanon/vehicle/vehicle_registry.h"
#include "vanon/vehicle/vin_decoder.h"

namespace vanon::service {

namespace {

// Positions of the configured QIs among a source's attributes.
std::vector<size_t> MapNames(const config::Config& config, const std::vector<std::string>& available,
                             const std::string& source) {
  std::vector<size_t> idx;
  for (const config::QuasiIdentifier& qi : config.quasi_identifiers) {
    size_t i = 0;
    while (i < available.size() && available[i] != qi.name) ++i;
    if (i == available.size()) {
      throw config::KeyError("quasi_identifiers[" + std::to_string(idx.size()) + "].name",
                             "'" + qi.name + "' is not an attribute of " + source);
    }
    idx.push_back(i);
  }
  return idx;
}

void Pick(const fleet::DecodedVehicle& d, const std::vector<size_t>& idx, std::vector<std::string>* qi) {
  qi->clear();
  for (size_t i : idx) qi->push_back(d.attributes[i].second);
}

// The VIN table and the registry differ only in how they are loaded and
// which method answers a lookup; both give a DecodedVehicle keyed by VIN.
template <typename Source, fleet::DecodedVehicle (Source::*kLookup)(std::string_view) const>
class LookupResolver : public QiResolver {
 public:
  // `sensitive`: the attribute holding the sensitive value, or SIZE_MAX.
  LookupResolver(const config::Config& c, Source source, const std::vector<std::string>& names, const std::string& what,
                 size_t sensitive = SIZE_MAX)
      : source_(std::move(source)), idx_(MapNames(c, names, what)), sensitive_(sensitive) {}
  bool Resolve(const ingest::ParsedEvent& e, std::vector<std::string>* qi) const override {
    fleet::DecodedVehicle d = (source_.*kLookup)(e.vin);
    Pick(d, idx_, qi);
    return d.known;
  }
  std::optional<std::string> SensitiveValue(const ingest::ParsedEvent& e) const override {
    if (sensitive_ == SIZE_MAX) return std::nullopt;
    fleet::DecodedVehicle d = (source_.*kLookup)(e.vin);
    if (!d.known) return std::nullopt;
    return d.attributes[sensitive_].second;
  }

 private:
  Source source_;
  std::vector<size_t> idx_;
  size_t sensitive_;
};

// Position of sensitive.registry_column among the registry's attributes.
size_t RegistrySensitive(const config::Config& c, const std::vector<std::string>& names) {
  if (!c.sensitive || c.sensitive->aggregator != config::SensitiveAggregator::kRegistry) return SIZE_MAX;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == c.sensitive->registry_column) return i;
  }
  throw config::KeyError(
      "sensitive.registry_column",
      "'" + c.sensitive->registry_column + "' is not a column of the registry " + c.vehicle.registry.file);
}

// A data file the config names that cannot be read or parsed refuses the
// key naming it; the message names the file (and its line).
template <typename Load>
auto ReadSource(const std::string& key, const Load& load) {
  try {
    return load();
  } catch (const std::runtime_error& e) {
    throw config::KeyError(key, e.what());
  }
}

using VinTableResolver = LookupResolver<fleet::VinDecoder, &fleet::VinDecoder::Decode>;
using RegistryResolver = LookupResolver<fleet::VehicleRegistry, &fleet::VehicleRegistry::Lookup>;

class EventFieldResolver : public QiResolver {
 public:
  EventFieldResolver(const config::Config& c, std::vector<std::string>* extras) {
    for (const config::QuasiIdentifier& qi : c.quasi_identifiers) {
      auto it = c.vehicle.fields.find(qi.name);
      if (it == c.vehicle.fields.end()) {
        throw config::KeyError("vehicle.fields", "no event path for QI '" + qi.name + "'");
      }
      idx_.push_back(extras->size());
      extras->push_back(it->second);
    }
  }
  bool Resolve(const ingest::ParsedEvent& e, std::vector<std::string>* qi) const override {
    qi->clear();
    bool known = true;
    for (size_t i : idx_) {
      const auto& v = e.extras[i];
      known = known && v.has_value();
      qi->push_back(v ? *v : std::string(fleet::kUnknownAttribute));
    }
    return known;
  }
  bool DependsOnVinOnly() const override { return false; }

 private:
  std::vector<size_t> idx_;
};

}  // namespace

std::unique_ptr<QiResolver> QiResolver::Create(const config::Config& config, std::vector<std::string>* extras) {
  switch (config.vehicle.source) {
    case config::VehicleSource::kVinTable: {
      fleet::VinDecoder table =
          ReadSource("vehicle.vin_table", [&] { return fleet::VinDecoder::Load(config.vehicle.vin_table); });
      std::vector<std::string> names(fleet::VinDecoder::kAttributeNames.begin(),
                                     fleet::VinDecoder::kAttributeNames.end());
      return std::make_unique<VinTableResolver>(config, std::move(table), names,
                                                "the VIN table " + config.vehicle.vin_table);
    }
    case config::VehicleSource::kRegistry: {
      fleet::VehicleRegistry registry = ReadSource("vehicle.registry.file", [&] {
        return fleet::VehicleRegistry::LoadCsv(config.vehicle.registry.file, config.vehicle.registry.key_column);
      });
      std::vector<std::string> names = registry.attribute_names();
      const size_t sensitive = RegistrySensitive(config, names);
      return std::make_unique<RegistryResolver>(config, std::move(registry), names,
                                                "the registry " + config.vehicle.registry.file, sensitive);
    }
    case config::VehicleSource::kEventFields:
      return std::make_unique<EventFieldResolver>(config, extras);
  }
  throw std::logic_error("unknown vehicle source");
}

void QiResolver::Check(const config::Config& config) {
  std::vector<std::string> extras;
  Create(config, &extras);
}

}  // namespace vanon::service
