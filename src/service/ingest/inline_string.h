// A short string kept inside its owner (up to N bytes; longer ones on the
// heap). The vehicle cache keeps a VIN and the last trip id per vehicle
// this way: a std::string of more than 15 bytes lives on the heap, and
// comparing a trip id there was a cache miss on every event (perf of
// bench_ingest_pipeline: a tenth of ingestion's CPU over 100,000 vehicles).
#ifndef VANON_SRC_SERVICE_INGEST_INLINE_STRING_H_
#define VANON_SRC_SERVICE_INGEST_INLINE_STRING_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

namespace vanon::service {

template <size_t N>
class InlineString {
 public:
  InlineString() = default;
  InlineString(const InlineString&) = delete;
  InlineString& operator=(const InlineString&) = delete;
  InlineString(InlineString&&) noexcept = default;
  InlineString& operator=(InlineString&&) noexcept = default;

  void assign(std::string_view s) {
    size_ = static_cast<uint32_t>(s.size());
    char* dst = chars_;
    if (s.size() > N) {
      heap_ = std::make_unique<char[]>(s.size());
      dst = heap_.get();
    } else {
      heap_.reset();
    }
    if (!s.empty()) std::memcpy(dst, s.data(), s.size());
  }

  std::string_view view() const { return {size_ > N ? heap_.get() : chars_, size_}; }

  bool operator==(std::string_view s) const {
    return s.size() == size_ && (size_ == 0 || std::memcmp(view().data(), s.data(), size_) == 0);
  }

 private:
  uint32_t size_ = 0;
  char chars_[N];
  std::unique_ptr<char[]> heap_;  // only when size_ > N
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_INGEST_INLINE_STRING_H_
