#include "vanon/ingest/qi_pool.h"

#include "base/coding.h"

namespace vanon::ingest {

QiValues QiPool::Get(std::vector<std::string> values) {
  key_.clear();
  for (const std::string& v : values) base::PutLengthPrefixed(&key_, v);
  auto it = lists_.find(key_);
  if (it != lists_.end()) return it->second;
  if (lists_.size() >= max_lists_) lists_.clear();
  return lists_.emplace(key_, QiValues(std::move(values))).first->second;
}

}  // namespace vanon::ingest
