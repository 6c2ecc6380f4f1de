// Internal: Mondrian-style top-down partitioning of items under a grouping
// rule, and the cutting of each final partition into publishable groups.
#ifndef VANON_SRC_ENGINE_PARTITIONER_H_
#define VANON_SRC_ENGINE_PARTITIONER_H_

#include <cstdint>
#include <vector>

#include "vanon/engine/schema.h"
#include "work_set.h"

namespace vanon::engine {

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
  std::vector<double> global;  // kAnonymity with t: distribution by dense id
};

struct ItemGroup {
  std::vector<uint32_t> items;
  std::vector<Cover> qi;  // generalized QIs covering the items
};

// QI rows of some items, row-major (work.dims codes a row), row i for
// items[i].
struct ItemRows {
  std::vector<int32_t> qi;
  std::vector<uint32_t> items;
};

// Copies the rows of `items` out of the work set.
ItemRows GatherRows(const WorkSet& work, const std::vector<uint32_t>& items);

// Takes the rows of `items` out of the work set without copying its QI
// array: afterwards work->qi is empty. For the last partitioning of a
// release, when nothing else needs the QI codes.
ItemRows TakeRows(WorkSet* work, std::vector<uint32_t> items);

// True when the items can form at least one group under the rule.
bool CanGroup(const WorkSet& work, const std::vector<uint32_t>& items, const GroupingSpec& spec);

// Splits the items of `rows` into groups that satisfy the rule and keep QI
// covers small. Requires CanGroup(rows.items). Reads work.sensitive, not
// work.qi. The result depends on the set of items, not on their order.
std::vector<ItemGroup> PartitionIntoGroups(const Schema& schema, const WorkSet& work, ItemRows rows,
                                           const GroupingSpec& spec);

}  // namespace vanon::engine

#endif  // VANON_SRC_ENGINE_PARTITIONER_H_
