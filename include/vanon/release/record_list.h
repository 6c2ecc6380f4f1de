// RecordList holds the event records of one partition's share of a release
// in one growing buffer with their end offsets. A share of a large release
// has hundreds of thousands of records that live only until librdkafka has
// copied them; a std::string each cost an allocation and a free per event,
// which was a measurable part of a release's CPU.
#ifndef VANON_RELEASE_RECORD_LIST_H_
#define VANON_RELEASE_RECORD_LIST_H_

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace vanon::release {

class RecordList {
 public:
  // Records appended so far, in order.
  size_t size() const { return ends_.size(); }
  bool empty() const { return ends_.empty(); }
  std::string_view operator[](size_t i) const {
    const size_t begin = i == 0 ? 0 : ends_[i - 1];
    return std::string_view(buffer_).substr(begin, ends_[i] - begin);
  }

  void Reserve(size_t records, size_t bytes) {
    ends_.reserve(records);
    buffer_.reserve(bytes);
  }
  // Building a record: append its bytes to buffer(), then Seal() it.
  std::string* buffer() { return &buffer_; }
  void Seal() { ends_.push_back(buffer_.size()); }
  void Append(std::string_view record) {
    buffer_.append(record);
    Seal();
  }
  // Frees the memory (a published share keeps only its summary).
  void Release() {
    std::string().swap(buffer_);
    std::vector<size_t>().swap(ends_);
  }

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
  Iterator end() const { return Iterator(this, size()); }

 private:
  std::string buffer_;
  std::vector<size_t> ends_;  // ends_[i]: one past record i's last byte
};

}  // namespace vanon::release

#endif  // VANON_RELEASE_RECORD_LIST_H_
