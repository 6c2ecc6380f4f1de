// The quasi-identifier values of a buffered event, shared by reference.
//
// A vehicle's QIs come from its VIN (decoding table or registry), so every
// event of a vehicle carries the same ones. Buffering an epoch holds about a
// million events at 100,000 events/s; a vector of five strings per event
// was about a third of an event's memory, and fresh memory is the largest
// cost of ingestion. Events of one vehicle now share one
// immutable copy. Compares by value; thread-safe to read and copy.

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
      : values_(std::make_shared<const std::vector<std::string>>(std::move(values))) {}
  QiValues(std::initializer_list<std::string> values) : QiValues(std::vector<std::string>(values)) {}

  const std::vector<std::string>& values() const { return values_ ? *values_ : Empty(); }
  size_t size() const { return values().size(); }
  bool empty() const { return values().empty(); }
  const std::string& operator[](size_t i) const { return values()[i]; }
  std::vector<std::string>::const_iterator begin() const { return values().begin(); }
  std::vector<std::string>::const_iterator end() const { return values().end(); }

  // True when both hold the very same copy (so equal without comparing).
  bool SharesWith(const QiValues& other) const { return values_ == other.values_; }

  friend bool operator==(const QiValues& a, const QiValues& b) { return a.values() == b.values(); }

 private:
  static const std::vector<std::string>& Empty() {
    static const std::vector<std::string> empty;
    return empty;
  }
  std::shared_ptr<const std::vector<std::string>> values_;
};

}  // namespace vanon::ingest

#endif  // VANON_INGEST_QI_VALUES_H_
