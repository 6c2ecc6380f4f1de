// RecordList holds the event records of one partition's share of a release.
// A share of a large release has hundreds of thousands of records that live
// only until librdkafka has copied them: a std::string each cost an
// allocation and a free per event, and one buffer for all of them (tens of
// megabytes, a different size every time) was faulted in afresh by every
// share. Records go into chunks of a fixed capacity instead, which the
// allocator hands from one share to the next without touching the kernel,
// and each record is written where it stays (building it elsewhere and
// copying it in was the last copy of every record before librdkafka's).
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
  std::string_view operator[](size_t i) const {
    const Ref& r = records_[i];
    return std::string_view(chunks_[r.chunk]->data() + r.offset, r.size);
  }

  void Reserve(size_t records) { records_.reserve(records); }
  // Building a record: append its bytes to buffer(), then Seal() it. The
  // buffer holds earlier records before the one being built; only append
  // to it, and ask for it again after each Seal().
  std::string* buffer() { return chunks_.empty() ? NewChunk() : chunks_.back().get(); }
  void Seal();
  void Append(std::string_view record) {
    buffer()->append(record);
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
    Iterator(const RecordList* list, size_t i) : list_(list), i_(i) {}
    std::string_view operator*() const { return (*list_)[i_]; }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    Iterator operator++(int) {
      Iterator before = *this;
      ++i_;
      return before;
    }
    bool operator==(const Iterator& o) const { return i_ == o.i_; }

   private:
    const RecordList* list_ = nullptr;
    size_t i_ = 0;
  };
  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, records_.size()); }

 private:
  // 256 KiB: a few hundred records, one size class the allocator reuses.
  // A chunk is closed once less than kHeadroom is left, so that a record
  // rarely outgrows its chunk (which then moves, records and all: records
  // are kept as offsets, not pointers).
  static constexpr size_t kChunkBytes = size_t{1} << 18;
  static constexpr size_t kHeadroom = size_t{1} << 13;

  struct Ref {
    uint32_t chunk;
    uint32_t offset;
    uint32_t size;
  };

  std::string* NewChunk();

  std::vector<std::unique_ptr<std::string>> chunks_;
  size_t start_ = 0;  // where the record being built starts in chunks_.back()
  std::vector<Ref> records_;
};

}  // namespace vanon::release

#endif  // VANON_RELEASE_RECORD_LIST_H_
