// Dense ids for sensitive values. The engine stores signatures as sets of
// ids, so an id must mean the same value in every release of a partition:
// the dictionary is state, persisted beside the signatures (EncodeState).
//
// With a sensitive hierarchy, leaf i of the hierarchy has id i (matching
// Schema::sensitive_leaf from SchemaFromConfig); values outside the hierarchy
// get ids after the leaves, and the engine then omits the hierarchical EMD.
// Without one, ids are given in order of first appearance.
#ifndef VANON_RELEASE_SENSITIVE_DICTIONARY_H_
#define VANON_RELEASE_SENSITIVE_DICTIONARY_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vanon/engine/hierarchy.h"
#include "vanon/engine/release.h"

namespace vanon::release {

class SensitiveDictionary {
 public:
  SensitiveDictionary() = default;
  explicit SensitiveDictionary(const engine::CategoricalHierarchy* hierarchy);

  engine::SensitiveId Intern(std::string_view value);
  std::optional<engine::SensitiveId> Find(std::string_view value) const;
  // `id` must have been returned by Intern.
  const std::string& Value(engine::SensitiveId id) const { return values_[id]; }
  size_t size() const { return values_.size(); }

  // Values in id order; DecodeState replaces everything (false and unchanged
  // on malformed input or duplicate values).
  std::string EncodeState() const;
  bool DecodeState(std::string_view data);

 private:
  std::vector<std::string> values_;
  std::map<std::string, engine::SensitiveId, std::less<>> ids_;
};

}  // namespace vanon::release

#endif  // VANON_RELEASE_SENSITIVE_DICTIONARY_H_
