// Internal: cuts one partition into groups of pairwise different sensitive
// values, keeping each group's QI cover small.
#ifndef VANON_SRC_ENGINE_DISTINCT_CUT_H_
#define VANON_SRC_ENGINE_DISTINCT_CUT_H_

#include <cstdint>
#include <vector>

#include "vanon/engine/schema.h"
#include "work_set.h"

namespace vanon::engine {

// Orders items so that neighbours are close in QI space: recursive median
// splits on the attribute whose cover costs most (a k-d tree's leaf order).
// Ranges of up to 4 items keep their input order.
void KdOrder(const Schema& schema, const WorkSet& work, std::vector<uint32_t>& items);

// Requires items.size() >= m and no value more than items.size() / m times
// (the condition under which such a cut exists). Returns groups of exactly m
// items except the last, which holds between m and 2m - 1; every item is in
// exactly one group and no group repeats a value.
std::vector<std::vector<uint32_t>> CutDistinct(const Schema& schema, const WorkSet& work, std::vector<uint32_t> items,
                                               uint32_t m);

}  // namespace vanon::engine

#endif  // VANON_SRC_ENGINE_DISTINCT_CUT_H_
