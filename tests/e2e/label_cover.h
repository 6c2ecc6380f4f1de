// Reads a published generalized QI label back into the code range it
// stands for, so the checker can test it against the raw values. This is
// the consumer's reading of a label, written without the engine's printer.
#ifndef VANON_TESTS_E2E_LABEL_COVER_H_
#define VANON_TESTS_E2E_LABEL_COVER_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "vanon/engine/schema.h"

namespace vanon::e2e {

// Categorical: the label is a hierarchy node name and stands for the node's
// leaves. Should several nodes share the name, the one covering all of
// `members` (raw codes of the group's real tuples) is taken. Numeric: "v"
// or "[lo,hi]". Nullopt when the label names nothing.
std::optional<engine::Cover> CoverOfLabel(const engine::QiAttribute& attribute, std::string_view label,
                                          std::span<const int32_t> members);

}  // namespace vanon::e2e

#endif  // VANON_TESTS_E2E_LABEL_COVER_H_
