#include "vanon/release/record_list.h"

#include <cstring>

namespace vanon::release {

void RecordList::Seal() {
  const size_t n = scratch_.size();
  char* at;
  if (n > kChunkBytes) {  // a record larger than a chunk gets memory of its own
    big_.push_back(std::make_unique_for_overwrite<char[]>(n));
    at = big_.back().get();
  } else {
    if (chunks_.empty() || used_ + n > kChunkBytes) {
      chunks_.push_back(std::make_unique_for_overwrite<char[]>(kChunkBytes));
      used_ = 0;
    }
    at = chunks_.back().get() + used_;
    used_ += n;
  }
  std::memcpy(at, scratch_.data(), n);
  records_.emplace_back(at, n);
  scratch_.clear();
}

void RecordList::Release() {
  std::vector<std::unique_ptr<char[]>>().swap(chunks_);
  std::vector<std::unique_ptr<char[]>>().swap(big_);
  std::vector<std::string_view>().swap(records_);
  std::string().swap(scratch_);
  used_ = kChunkBytes;
}

}  // namespace vanon::release
