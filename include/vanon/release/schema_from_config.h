// Builds the engine's Schema from the configured quasi-identifiers and
// sensitive attribute.
//
// The engine codes numeric values as int32: a numeric QI with `precision` p
// codes the value v as v * 10^p (NumericDomain::decimals = p). range_min is
// rounded down and range_max up to whole codes, and a fixed bin width to the
// nearest code (at least 1). A value is never rounded or clamped: one that
// has no exact code (NumericQiCode) is published under the root instead, so a
// published interval always contains the vehicle's true value.
#ifndef VANON_RELEASE_SCHEMA_FROM_CONFIG_H_
#define VANON_RELEASE_SCHEMA_FROM_CONFIG_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "vanon/config.h"
#include "vanon/engine/release.h"
#include "vanon/engine/schema.h"

namespace vanon::release {

// A QI code that no schema built here accepts: TupleBuilder gives it to a
// tuple that cannot be placed, so the engine suppresses it as ineligible.
inline constexpr int32_t kIneligibleCode = std::numeric_limits<int32_t>::min();

// Loads every hierarchy (categorical QIs, and the sensitive attribute's when
// configured, which sets Schema::sensitive_hierarchy). Throws
// std::runtime_error naming the file for a bad hierarchy, and
// std::invalid_argument for a numeric range outside int32 (kIneligibleCode
// excluded). Takes only the two sections it reads.
engine::Schema SchemaFromConfig(const std::vector<config::QuasiIdentifier>& qis,
                                const std::optional<config::SensitiveConfig>& sensitive);

// 10^precision.
double NumericScale(int precision);

// The code of `raw` for a numeric QI, or nullopt when it is not a finite
// number, lies outside [range_min, range_max], or has more decimals than the
// precision (1.55 at precision 1): a value that no code stands for exactly.
std::optional<int32_t> NumericQiCode(const config::QuasiIdentifier& qi, const engine::NumericDomain& domain,
                                     std::string_view raw);

// The engine's parameters (model, m, k, l, t, max delay) from the privacy
// section; the seed is left for the caller to draw.
engine::ReleaseParams ReleaseParamsFromConfig(const config::PrivacyConfig& privacy);

}  // namespace vanon::release

#endif  // VANON_RELEASE_SCHEMA_FROM_CONFIG_H_
