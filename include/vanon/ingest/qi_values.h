// The quasi-identifier values of a buffered event, shared by reference.
//
// A vehicle's QIs come from its VIN (decoding table or registry), so every
// event of a vehicle carries the same ones. Buffering an epoch holds about a
// million events at 100,000 events/s; a vector of five strings per event
// was about a third of an event's memory, and fresh memory is the largest
// cost of ingestion. Events of one vehicle now share one
// immutable copy. Compares by value; thread-safe to read and copy.
//
// The list and its reference counts sit on separate cache lines. Ingestion
// copies a vehicle's QiValues into every event it buffers (a write to the
// counts), while the computing threads read the lists of the epoch before;
// on one line, their reads took the line from the ingesting core. The
// instruction after ingestion's increment held 2.07% of vanon's samples with
// one line, 1.60% with two (perf of bench_release_e2e,
// loadtest/results/ingest-qi-copy-2026-11-27.md).

#ifndef VANON_INGEST_QI_VALUES_H_
#define VANON_INGEST_QI_VALUES_H_

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace vanon::ingest {

class QiValues {
 public:
  QiValues() = default;
  QiValues(std::vector<std::string> values)  // NOLINT: implicit, as the vector it stands for
      : list_(std::make_shared<const List>(List{std::move(values)})) {}
  QiValues(std::initializer_list<std::string> values) : QiValues(std::vector<std::string>(values)) {}

  const std::vector<std::string>& values() const { return list_ ? list_->values : Empty(); }
  size_t size() const { return values().size(); }
  bool empty() const { return values().empty(); }
  const std::string& operator[](size_t i) const { return values()[i]; }
  std::vector<std::string>::const_iterator begin() const { return values().begin(); }
  std::vector<std::string>::const_iterator end() const { return values().end(); }

  // True when both hold the very same copy (so equal without comparing).
  bool SharesWith(const QiValues& other) const { return list_ == other.list_; }
  // The shared copy's address (null when empty): equal for values that
  // share it, so a key for work done once per copy while they are alive.
  const void* identity() const { return list_.get(); }

  friend bool operator==(const QiValues& a, const QiValues& b) { return a.values() == b.values(); }

 private:
  static const std::vector<std::string>& Empty() {
    static const std::vector<std::string> empty;
    return empty;
  }
  // make_shared puts the counts first and this after them, at the next
  // multiple of 64 bytes.
  struct alignas(64) List {
    std::vector<std::string> values;
  };
  std::shared_ptr<const List> list_;
};

}  // namespace vanon::ingest

#endif  // VANON_INGEST_QI_VALUES_H_
