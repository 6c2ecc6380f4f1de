#include "vanon/release/record_list.h"

#include <stdexcept>

namespace vanon::release {

std::string* RecordList::NewChunk() {
  if (chunks_.size() >= UINT32_MAX) throw std::length_error("RecordList: too many chunks");
  chunks_.push_back(std::make_unique<std::string>());
  chunks_.back()->reserve(kChunkBytes - 1);  // and its terminating null: one 256 KiB allocation
  start_ = 0;
  return chunks_.back().get();
}

void RecordList::Seal() {
  std::string* chunk = buffer();
  const size_t size = chunk->size() - start_;
  if (chunk->size() > UINT32_MAX) throw std::length_error("RecordList: a record of 4 GiB or more");
  records_.push_back(
      {static_cast<uint32_t>(chunks_.size() - 1), static_cast<uint32_t>(start_), static_cast<uint32_t>(size)});
  start_ = chunk->size();
  if (chunk->size() + kHeadroom > kChunkBytes) NewChunk();
}

void RecordList::Release() {
  std::vector<std::unique_ptr<std::string>>().swap(chunks_);
  std::vector<Ref>().swap(records_);
  start_ = 0;
}

}  // namespace vanon::release
