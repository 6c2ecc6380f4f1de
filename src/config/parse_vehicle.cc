#include <cmath>
#include <cstdint>
#include <limits>
#include <set>

#include "parse.h"

namespace vanon::config::internal {

namespace {

constexpr double kMaxDouble = std::numeric_limits<double>::max();

// Values are coded as value * 10^precision in an int32 (SchemaFromConfig),
// clear of the two codes reserved below every domain.
void CheckCodeRange(Section& q, const QuasiIdentifier& qi) {
  constexpr double kLo = std::numeric_limits<int32_t>::min() + 2.0;
  constexpr double kHi = std::numeric_limits<int32_t>::max();
  double scale = 1;
  for (int i = 0; i < qi.precision; ++i) scale *= 10;
  const double lo = std::floor(qi.range_min * scale), hi = std::ceil(qi.range_max * scale);
  if (!(lo >= kLo && hi <= kHi)) {
    q.Error("range", "must lie within [-2147483646, 2147483647] once multiplied by 10^precision");
  }
}

void ParseNumeric(Section& q, QuasiIdentifier* qi) {
  q.Unexpected("hierarchy", "only for categorical quasi-identifiers");
  if (!q.Has("range")) q.Error("range", "missing required key");
  bool lo = false, hi = false;
  {
    Section r(q.diag(), q.Child("range"), q.PathOf("range"));
    lo = r.Double("min", &qi->range_min, -kMaxDouble, kMaxDouble, false,
                  /*required=*/q.Has("range"));
    hi = r.Double("max", &qi->range_max, -kMaxDouble, kMaxDouble, false,
                  /*required=*/q.Has("range"));
    if (lo && hi && qi->range_max <= qi->range_min) {
      r.Error("max", "must be greater than range.min");
    }
  }
  q.Int("precision", &qi->precision, 0, kMaxQiPrecision);
  if (lo && hi) CheckCodeRange(q, *qi);
  q.Enum("split", &qi->split, {{"fixed_bins", NumericSplit::kFixedBins}, {"on_demand", NumericSplit::kOnDemand}});
  if (qi->split == NumericSplit::kOnDemand) {
    q.Unexpected("bins", "not used with split: on_demand");
    return;
  }
  if (!q.Has("bins")) {
    q.Error("bins", "missing required key (or set split: on_demand)");
    return;
  }
  Section b(q.diag(), q.Child("bins"), q.PathOf("bins"));
  b.Double("width", &qi->bin_width, 0, kMaxDouble, /*lo_open=*/true,
           /*required=*/true);
}

}  // namespace

void ParseVehicle(Section& root, VehicleConfig* out) {
  Section s(root.diag(), root.Child("vehicle"), "vehicle");
  s.Enum("source", &out->source,
         {{"vin_table", VehicleSource::kVinTable},
          {"registry", VehicleSource::kRegistry},
          {"event_fields", VehicleSource::kEventFields}});
  // Keys of another source are errors rather than ignored: a config that
  // names a registry file but decodes VINs is almost certainly a mistake.
  if (out->source == VehicleSource::kVinTable) {
    s.File("vin_table", &out->vin_table, /*required=*/true);
  } else {
    s.Unexpected("vin_table", "only used when vehicle.source is vin_table");
  }
  if (out->source == VehicleSource::kRegistry) {
    if (!s.Has("registry")) s.Error("registry", "missing required key");
    Section r(root.diag(), s.Child("registry"), s.PathOf("registry"));
    r.File("file", &out->registry.file, /*required=*/s.Has("registry"));
    r.String("key_column", &out->registry.key_column);
  } else {
    s.Unexpected("registry", "only used when vehicle.source is registry");
  }
  if (out->source == VehicleSource::kEventFields) {
    if (!s.Has("fields")) s.Error("fields", "missing required key");
    if (s.StringMap("fields", &out->fields)) {
      for (const auto& [name, path] : out->fields) {
        if (path.front() == '.' || path.back() == '.' || path.find("..") != std::string::npos) {
          root.diag()->Error(ChildPath(s.PathOf("fields"), name), "\"" + path + "\" is not a dotted path");
        }
      }
    }
  } else {
    s.Unexpected("fields", "only used when vehicle.source is event_fields");
  }
}

void ParseQuasiIdentifiers(Section& root, std::vector<QuasiIdentifier>* out) {
  std::vector<YAML::Node> items = root.List("quasi_identifiers", /*required=*/true);
  if (root.Has("quasi_identifiers") && items.empty()) {
    root.Error("quasi_identifiers", "needs at least one quasi-identifier");
  }
  std::set<std::string> names;
  for (size_t i = 0; i < items.size(); ++i) {
    Section q(root.diag(), items[i], ItemPath("quasi_identifiers", i));
    QuasiIdentifier qi;
    if (q.String("name", &qi.name, /*required=*/true)) {
      if (!IsIdentifier(qi.name)) {
        q.Error("name", "\"" + qi.name +
                            "\" must be letters, digits and _ (it is used "
                            "as qi:NAME)");
      } else if (!names.insert(qi.name).second) {
        q.Error("name", "duplicate quasi-identifier \"" + qi.name + "\"");
      }
    }
    q.Enum("type", &qi.type, {{"categorical", QiType::kCategorical}, {"numeric", QiType::kNumeric}});
    if (qi.type == QiType::kCategorical) {
      q.File("hierarchy", &qi.hierarchy, /*required=*/true);
      for (const char* key : {"range", "bins", "split", "precision"}) {
        q.Unexpected(key, "only for numeric quasi-identifiers");
      }
    } else {
      ParseNumeric(q, &qi);
    }
    out->push_back(std::move(qi));
  }
}

namespace {

// The windowed aggregator and the missing-value policy. A value the preset
// gave that does not apply to this aggregator falls back to the plain
// default; the same value written in the file is an error.
void ParseValueWindow(Section& s, const SensitiveConfig& defaults, SensitiveConfig* sc) {
  const bool mode = sc->aggregator == SensitiveAggregator::kMode;
  const bool registry = sc->aggregator == SensitiveAggregator::kRegistry;
  sc->window_epochs = mode ? defaults.window_epochs : 1;
  sc->missing_policy = registry ? MissingPolicy::kMissingValue : defaults.missing_policy;
  sc->carry_epochs = registry ? 0 : defaults.carry_epochs;
  if (s.Int("window_epochs", &sc->window_epochs, 1, 10000) && sc->window_epochs > 1 && !mode) {
    s.Error("window_epochs", "only with aggregator: mode (set 1)");
  }
  if (s.Enum("missing_policy", &sc->missing_policy,
             {{"missing_value", MissingPolicy::kMissingValue}, {"carry", MissingPolicy::kCarry}}) &&
      sc->missing_policy == MissingPolicy::kCarry && registry) {
    s.Error("missing_policy", "carry is not used with aggregator: registry (a registry value does not change)");
  }
  if (sc->missing_policy == MissingPolicy::kCarry) {
    if (s.Int("carry_epochs", &sc->carry_epochs, 1, 100000) || sc->carry_epochs >= 1) return;
    s.diag()->ErrorNear(s.PathOf("missing_policy"), s.PathOf("carry_epochs"),
                        "required with missing_policy: carry (epochs a last value is kept, >= 1)");
  } else {
    sc->carry_epochs = 0;
    s.Unexpected("carry_epochs", "only used with missing_policy: carry");
  }
}

}  // namespace

void ParseSensitive(Section& root, const SensitiveConfig& defaults, std::optional<SensitiveConfig>* out) {
  YAML::Node node = root.Child("sensitive");
  if (!node.IsDefined() || node.IsNull()) return;
  Section s(root.diag(), node, "sensitive");
  SensitiveConfig sc;
  s.Enum("aggregator", &sc.aggregator,
         {{"first", SensitiveAggregator::kFirst},
          {"mode", SensitiveAggregator::kMode},
          {"last", SensitiveAggregator::kLast},
          {"registry", SensitiveAggregator::kRegistry}});
  if (sc.aggregator == SensitiveAggregator::kRegistry) {
    s.String("registry_column", &sc.registry_column, /*required=*/true);
    s.Unexpected("field", "not used with aggregator: registry");
  } else {
    s.DottedPath("field", &sc.field, /*required=*/true);
    s.Unexpected("registry_column", "only used with aggregator: registry");
  }
  std::string missing;
  if (s.String("missing_value", &missing)) sc.missing_value = missing;
  s.File("hierarchy", &sc.hierarchy);
  ParseValueWindow(s, defaults, &sc);
  *out = std::move(sc);
}

}  // namespace vanon::config::internal
