// Internal: the tuples of one release laid out for the partitioner.
#ifndef VANON_SRC_ENGINE_WORK_SET_H_
#define VANON_SRC_ENGINE_WORK_SET_H_

#include <cstdint>
#include <vector>

#include "vanon/engine/release.h"

namespace vanon::engine {

// Item-major flat arrays: item i has QI codes qi[i*dims .. i*dims+dims) and a
// dense sensitive id (values[dense] is the caller's SensitiveId). Flat arrays
// keep the partitioner's scans cache-friendly and small (see docs/engine.md).
struct WorkSet {
  size_t dims = 0;
  std::vector<int32_t> qi;
  std::vector<uint32_t> sensitive;
  std::vector<TupleRef> ref;
  std::vector<SensitiveId> values;  // dense id -> SensitiveId, sorted

  int32_t Qi(uint32_t item, size_t attr) const { return qi[item * dims + attr]; }
  // Dense id of `value`, or values.size() when absent.
  uint32_t Dense(SensitiveId value) const;
};

}  // namespace vanon::engine

#endif  // VANON_SRC_ENGINE_WORK_SET_H_
