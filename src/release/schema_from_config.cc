#include "vanon/release/schema_from_config.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <memory>
#include <stdexcept>

namespace vanon::release {

namespace {

int32_t ToCode(double v, const std::string& qi) {
  // kIneligibleCode (INT32_MIN) and kUnknownQiCode (INT32_MIN + 1) must stay
  // outside every domain.
  constexpr double kLo = std::numeric_limits<int32_t>::min() + 2.0;
  constexpr double kHi = std::numeric_limits<int32_t>::max();
  if (!(v >= kLo && v <= kHi)) {
    throw std::invalid_argument("quasi-identifier '" + qi + "': numeric range must lie within [" +
                                std::to_string(static_cast<int64_t>(kLo)) + ", " +
                                std::to_string(static_cast<int64_t>(kHi)) + "] once multiplied by 10^precision");
  }
  return static_cast<int32_t>(v);
}

}  // namespace

double NumericScale(int precision) {
  double scale = 1;
  for (int i = 0; i < precision; ++i) scale *= 10;
  return scale;
}

std::optional<int32_t> NumericQiCode(const config::QuasiIdentifier& qi, const engine::NumericDomain& domain,
                                     std::string_view raw) {
  double v = 0;
  const char* end = raw.data() + raw.size();
  auto [ptr, ec] = std::from_chars(raw.data(), end, v);
  if (ec != std::errc() || ptr != end || !std::isfinite(v)) return std::nullopt;
  if (v < qi.range_min || v > qi.range_max) return std::nullopt;
  // 1.1 * 10 is 11.000000000000002 in binary: a value is representable when
  // it is within rounding error of a whole code (a relative 1e-12, thousands
  // of ulps), not only when exactly equal. Anything farther off, like 1.55
  // at precision 1, has no code.
  const double scaled = v * NumericScale(qi.precision);
  const double code = std::round(scaled);
  if (std::abs(scaled - code) > 1e-12 * std::max(1.0, std::abs(scaled))) return std::nullopt;
  if (code < domain.min || code > domain.max) return std::nullopt;
  return static_cast<int32_t>(code);
}

engine::Schema SchemaFromConfig(const std::vector<config::QuasiIdentifier>& qis,
                                const std::optional<config::SensitiveConfig>& sensitive) {
  std::vector<engine::QiAttribute> attributes;
  for (const config::QuasiIdentifier& qi : qis) {
    engine::QiAttribute a;
    a.name = qi.name;
    if (qi.type == config::QiType::kCategorical) {
      a.hierarchy =
          std::make_shared<const engine::CategoricalHierarchy>(engine::CategoricalHierarchy::LoadArxCsv(qi.hierarchy));
    } else {
      // Codes are value * 10^precision. The range is widened outward to
      // whole codes, so the root still covers every in-range value.
      const double scale = NumericScale(qi.precision);
      a.numeric.decimals = qi.precision;
      a.numeric.min = ToCode(std::floor(qi.range_min * scale), qi.name);
      a.numeric.max = ToCode(std::ceil(qi.range_max * scale), qi.name);
      if (qi.split == config::NumericSplit::kFixedBins) {
        a.numeric.bin_width = static_cast<int32_t>(
            std::max(1.0, std::min(std::round(qi.bin_width * scale), static_cast<double>(INT32_MAX))));
      }
    }
    attributes.push_back(std::move(a));
  }
  engine::Schema schema(std::move(attributes));
  if (sensitive && !sensitive->hierarchy.empty()) {
    auto h = std::make_shared<const engine::CategoricalHierarchy>(
        engine::CategoricalHierarchy::LoadArxCsv(sensitive->hierarchy));
    // SensitiveDictionary gives leaf i the id i.
    schema.sensitive_leaf.resize(static_cast<size_t>(h->LeafCount()));
    for (int32_t i = 0; i < h->LeafCount(); ++i) schema.sensitive_leaf[static_cast<size_t>(i)] = i;
    schema.sensitive_hierarchy = std::move(h);
  }
  return schema;
}

engine::ReleaseParams ReleaseParamsFromConfig(const config::PrivacyConfig& privacy) {
  engine::ReleaseParams p;
  p.model =
      privacy.model == config::PrivacyModel::kMInvariance ? engine::Model::kMInvariance : engine::Model::kKAnonymity;
  p.m = static_cast<uint32_t>(privacy.m);
  p.k = static_cast<uint32_t>(privacy.k);
  p.l = static_cast<uint32_t>(privacy.l);
  p.t = privacy.t;
  p.max_delay = static_cast<uint32_t>(privacy.max_delay_epochs);
  p.shared_signatures = static_cast<uint32_t>(privacy.shared_signatures);
  p.shared_signature_size = static_cast<uint32_t>(privacy.shared_signature_size);
  p.history_slots = static_cast<uint32_t>(privacy.history_slots);
  p.history_min_share = privacy.history_min_share;
  p.history_min_events = static_cast<uint32_t>(privacy.learn_events);
  return p;
}

}  // namespace vanon::release
