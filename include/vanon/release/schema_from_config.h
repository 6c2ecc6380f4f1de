// Builds the engine's Schema from the configured quasi-identifiers and
// sensitive attribute.
//
// The engine codes numeric values as int32. Numeric QIs therefore use integer
// bounds: range_min is rounded down, range_max up, and a fixed bin width is
// rounded to the nearest integer (at least 1). TupleBuilder rounds each
// numeric value to the nearest integer after clamping it to the range.
#ifndef VANON_RELEASE_SCHEMA_FROM_CONFIG_H_
#define VANON_RELEASE_SCHEMA_FROM_CONFIG_H_

#include <cstdint>
#include <limits>

#include "vanon/config.h"
#include "vanon/engine/release.h"
#include "vanon/engine/schema.h"

namespace vanon {

// A QI code that no schema built here accepts: TupleBuilder gives it to a
// tuple that cannot be placed, so the engine suppresses it as ineligible.
inline constexpr int32_t kIneligibleCode = std::numeric_limits<int32_t>::min();

// Loads every hierarchy (categorical QIs, and the sensitive attribute's when
// configured, which sets Schema::sensitive_hierarchy). Throws
// std::runtime_error naming the file for a bad hierarchy, and
// std::invalid_argument for a numeric range outside int32 (kIneligibleCode
// excluded).
Schema SchemaFromConfig(const Config& config);

// The engine's parameters (model, m, k, l, t, max delay) from the privacy
// section; the seed is left for the caller to draw.
ReleaseParams ReleaseParamsFromConfig(const PrivacyConfig& privacy);

}  // namespace vanon

#endif  // VANON_RELEASE_SCHEMA_FROM_CONFIG_H_
