// The quasi-identifiers of a release, in order, and how each is generalized.
//
// QI values travel through the engine as compact int32 codes: the leaf id for a
// categorical attribute, the (integer) value itself for a numeric one. A
// generalized value is a Cover, the closed code range [lo, hi] it stands for.
#ifndef VANON_ENGINE_SCHEMA_H_
#define VANON_ENGINE_SCHEMA_H_

#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vanon/engine/hierarchy.h"

namespace vanon::engine {

// A QI code for "the value is unknown" (a VIN absent from the decoding
// table, privacy-model.md section 1): the tuple is published, and only the
// attribute's root covers it, so every group holding it is generalized to
// the root on that attribute. Outside every domain, like any sentinel.
inline constexpr int32_t kUnknownQiCode = INT32_MIN + 1;

struct Cover {
  int32_t lo = 0;
  int32_t hi = 0;
  bool operator==(const Cover&) const = default;
};

// A numeric attribute over the integer range [min, max]. With bin_width > 0 a
// cover is widened to whole fixed-width bins starting at min; with bin_width 0
// the range is split on demand and covers are the tightest interval.
// A code stands for the decimal value code / 10^decimals: the engine works on
// codes only, and decimals matter only when a label is printed.
struct NumericDomain {
  int32_t min = 0;
  int32_t max = 0;
  int32_t bin_width = 0;
  int32_t decimals = 0;  // [0, 9]
};

struct QiAttribute {
  std::string name;
  // Set for a categorical attribute; null for a numeric one.
  std::shared_ptr<const CategoricalHierarchy> hierarchy;
  NumericDomain numeric;

  bool IsCategorical() const { return hierarchy != nullptr; }
};

class Schema {
 public:
  Schema() = default;
  explicit Schema(std::vector<QiAttribute> attributes) : attributes_(std::move(attributes)) {}

  size_t size() const { return attributes_.size(); }
  const QiAttribute& attribute(size_t i) const { return attributes_[i]; }
  const std::vector<QiAttribute>& attributes() const { return attributes_; }

  // Code of a raw value, or nullopt when it is not in the attribute's domain.
  std::optional<int32_t> Encode(size_t attr, std::string_view raw) const;
  bool IsValidCode(size_t attr, int32_t code) const;

  // Smallest publishable cover of the code range [lo, hi]: the leaf range of
  // the lowest common node, or the (binned) interval.
  Cover Generalize(size_t attr, int32_t lo, int32_t hi) const;
  // The cover of the whole domain (the hierarchy's root, [min, max]).
  Cover RootCover(size_t attr) const;
  // Normalized certainty penalty of publishing `cover` (0 = exact, 1 = root).
  double Loss(size_t attr, Cover cover) const;
  // "Electrified", "*", "[4,5]", "5", or with decimals "[1.5,2]", "-0.25".
  std::string Label(size_t attr, Cover cover) const;

  // Optional knowledge about the sensitive attribute, used only by metrics:
  // the rank of each sensitive id in its natural order (ordered EMD), and the
  // leaf id of each sensitive id in a hierarchy (hierarchical EMD).
  std::vector<int32_t> sensitive_rank;
  std::shared_ptr<const CategoricalHierarchy> sensitive_hierarchy;
  std::vector<int32_t> sensitive_leaf;

 private:
  std::vector<QiAttribute> attributes_;
};

}  // namespace vanon::engine

#endif  // VANON_ENGINE_SCHEMA_H_
