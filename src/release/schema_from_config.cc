#include "vanon/release/schema_from_config.h"

#include <cmath>
#include <memory>
#include <stdexcept>

namespace vanon {

namespace {

int32_t ToCode(double v, const std::string& qi) {
  // kIneligibleCode (INT32_MIN) and kUnknownQiCode (INT32_MIN + 1) must stay
  // outside every domain.
  constexpr double kLo = std::numeric_limits<int32_t>::min() + 2.0;
  constexpr double kHi = std::numeric_limits<int32_t>::max();
  if (!(v >= kLo && v <= kHi)) {
    throw std::invalid_argument("quasi-identifier '" + qi + "': numeric range must lie within [" +
                                std::to_string(static_cast<int64_t>(kLo)) + ", " +
                                std::to_string(static_cast<int64_t>(kHi)) + "]");
  }
  return static_cast<int32_t>(v);
}

}  // namespace

Schema SchemaFromConfig(const Config& config) {
  std::vector<QiAttribute> attributes;
  for (const QuasiIdentifier& qi : config.quasi_identifiers) {
    QiAttribute a;
    a.name = qi.name;
    if (qi.type == QiType::kCategorical) {
      a.hierarchy = std::make_shared<const CategoricalHierarchy>(CategoricalHierarchy::LoadArxCsv(qi.hierarchy));
    } else {
      a.numeric.min = ToCode(std::floor(qi.range_min), qi.name);
      a.numeric.max = ToCode(std::ceil(qi.range_max), qi.name);
      if (qi.split == NumericSplit::kFixedBins) {
        a.numeric.bin_width = static_cast<int32_t>(
            std::max(1.0, std::min(std::round(qi.bin_width), static_cast<double>(INT32_MAX))));
      }
    }
    attributes.push_back(std::move(a));
  }
  Schema schema(std::move(attributes));
  if (config.sensitive && !config.sensitive->hierarchy.empty()) {
    auto h = std::make_shared<const CategoricalHierarchy>(
        CategoricalHierarchy::LoadArxCsv(config.sensitive->hierarchy));
    // SensitiveDictionary gives leaf i the id i.
    schema.sensitive_leaf.resize(static_cast<size_t>(h->LeafCount()));
    for (int32_t i = 0; i < h->LeafCount(); ++i) schema.sensitive_leaf[static_cast<size_t>(i)] = i;
    schema.sensitive_hierarchy = std::move(h);
  }
  return schema;
}

ReleaseParams ReleaseParamsFromConfig(const PrivacyConfig& privacy) {
  ReleaseParams p;
  p.model = privacy.model == PrivacyModel::kMInvariance ? Model::kMInvariance : Model::kKAnonymity;
  p.m = static_cast<uint32_t>(privacy.m);
  p.k = static_cast<uint32_t>(privacy.k);
  p.l = static_cast<uint32_t>(privacy.l);
  p.t = privacy.t;
  p.max_delay = static_cast<uint32_t>(privacy.max_delay_epochs);
  return p;
}

}  // namespace vanon
