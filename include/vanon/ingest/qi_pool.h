// Hands out one shared QiValues per distinct list of QI values.
//
// Every buffered event copies its vehicle's QiValues, and the copy touches
// the list's reference count. With one list per vehicle those counts were
// 100,000 cache lines apart, a cache miss on most events (perf of
// bench_ingest_pipeline); vehicles of one model share the same values, so a
// fleet has far fewer distinct lists than vehicles, and their counts stay
// in cache. Bounded: past max_lists the pool starts over (lists already
// handed out stay valid; they are only not shared with later ones).
#ifndef VANON_INGEST_QI_POOL_H_
#define VANON_INGEST_QI_POOL_H_

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "vanon/ingest/qi_values.h"

namespace vanon::ingest {

class QiPool {
 public:
  explicit QiPool(size_t max_lists = 1 << 16) : max_lists_(max_lists) {}

  // The shared QiValues equal to `values`.
  QiValues Get(std::vector<std::string> values);

  size_t size() const { return lists_.size(); }

 private:
  size_t max_lists_;
  std::string key_;  // reused: the values, each length-prefixed
  std::unordered_map<std::string, QiValues> lists_;
};

}  // namespace vanon::ingest

#endif  // VANON_INGEST_QI_POOL_H_
