#include "work_set.h"

#include <algorithm>

namespace vanon::engine {

uint32_t WorkSet::Dense(SensitiveId value) const {
  auto it = std::lower_bound(values.begin(), values.end(), value);
  if (it == values.end() || *it != value) return static_cast<uint32_t>(values.size());
  return static_cast<uint32_t>(it - values.begin());
}

}  // namespace vanon::engine
