// RecordList holds the event records of one partition's share of a release.
// A share of a large release has hundreds of thousands of records that live
// only until librdkafka has copied them: a std::string each cost an
// allocation and a free per event, and one buffer for all of them (tens of
// megabytes, a different size every time) was faulted in afresh by every
// share. Records go into fixed-size chunks instead, which the allocator
// hands from one share to the next without touching the kernel.
#ifndef VANON_RELEASE_RECORD_LIST_H_
#define VANON_RELEASE_RECORD_LIST_H_

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace vanon::release {

class RecordList {
 public:
  // Records appended so far, in order.
  size_t size() const { return records_.size(); }
  bool empty() const { return records_.empty(); }
  std::string_view operator[](size_t i) const { return records_[i]; }

  void Reserve(size_t records) { records_.reserve(records); }
  // Building a record: append its bytes to buffer(), then Seal() it.
  std::string* buffer() { return &scratch_; }
  void Seal();
  void Append(std::string_view record) {
    scratch_.assign(record);
    Seal();
  }
  // Frees the memory (a published share keeps only its summary).
  void Release();

  class Iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::string_view;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = std::string_view;

    Iterator() = default;
    explicit Iterator(std::vector<std::string_view>::const_iterator it) : it_(it) {}
    std::string_view operator*() const { return *it_; }
    Iterator& operator++() {
      ++it_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++it_;
      return before;
    }
    bool operator==(const Iterator& o) const { return it_ == o.it_; }

   private:
    std::vector<std::string_view>::const_iterator it_;
  };
  Iterator begin() const { return Iterator(records_.begin()); }
  Iterator end() const { return Iterator(records_.end()); }

 private:
  // 256 KiB: a few hundred records, one size class the allocator reuses.
  static constexpr size_t kChunkBytes = size_t{1} << 18;

  std::vector<std::unique_ptr<char[]>> chunks_;
  std::vector<std::unique_ptr<char[]>> big_;  // records larger than a chunk
  size_t used_ = kChunkBytes;                 // bytes used in chunks_.back(); full when none
  std::vector<std::string_view> records_;     // into chunks_
  std::string scratch_;                       // the record being built
};

}  // namespace vanon::release

#endif  // VANON_RELEASE_RECORD_LIST_H_
