// Internal: Mondrian-style top-down partitioning of items under a grouping
// rule, and the cutting of each final partition into publishable groups.
#ifndef VANON_SRC_ENGINE_PARTITIONER_H_
#define VANON_SRC_ENGINE_PARTITIONER_H_

#include <cstdint>
#include <vector>

#include "vanon/engine/schema.h"
#include "work_set.h"

namespace vanon {

enum class GroupingRule {
  // New signatures: every group holds >= m tuples with pairwise different
  // sensitive values. A partition can be cut so iff n >= m and every value
  // occurs at most floor(n / m) times.
  kDistinct,
  // One existing signature: every group holds one slot per signature value,
  // counterfeits filling the slots without a real tuple. A split is taken only
  // if it does not add counterfeits.
  kSignatureSlots,
  // k-anonymity: >= k tuples (one per vehicle), optional distinct-l and
  // equal-distance EMD cap.
  kAnonymity,
};

struct GroupingSpec {
  GroupingRule rule = GroupingRule::kDistinct;
  uint32_t m = 2;
  uint32_t signature_size = 0;  // kSignatureSlots
  uint32_t k = 2;               // kAnonymity
  uint32_t l = 0;
  double t = 0;
  std::vector<double> global;   // kAnonymity with t: distribution by dense id
};

struct ItemGroup {
  std::vector<uint32_t> items;
};

// True when the items can form at least one group under the rule.
bool CanGroup(const WorkSet& work, const std::vector<uint32_t>& items, const GroupingSpec& spec);

// Splits `items` into groups that satisfy the rule and keep QI covers
// small. Requires CanGroup(items). The result depends on the set of items,
// not on their order.
std::vector<ItemGroup> PartitionIntoGroups(const Schema& schema, const WorkSet& work,
                                           const std::vector<uint32_t>& items,
                                           const GroupingSpec& spec);

}  // namespace vanon

#endif  // VANON_SRC_ENGINE_PARTITIONER_H_
