// What a DP count query counts, over which cells, with which per-vehicle
// contribution bounds.
//
// The set of cells is fixed in advance (every combination of the configured
// dimension values, or all time buckets of the epoch) and every cell is
// published, zero or not. Publishing only the cells that occur in the data
// would reveal, through a cell's mere presence, that some vehicle has a rare
// value; the noise only protects values, not the choice of cells.

#ifndef VANON_DP_COUNT_QUERY_H_
#define VANON_DP_COUNT_QUERY_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace vanon::dp {

enum class CountUnit {
  kEvents,    // matching events
  kTrips,     // distinct trips with at least one matching event
  kVehicles,  // distinct vehicles with at least one matching event
};

struct Dimension {
  // kSensitive: the event's raw sensitive value (DpEvent::sensitive).
  enum class Kind { kEvent, kQi, kTimeBucket, kSensitive };
  Kind kind = Kind::kEvent;
  std::string qi;                   // kQi: quasi-identifier name
  std::vector<std::string> domain;  // kEvent, kQi, kSensitive: every value that gets a cell
  int64_t bucket_ms = 0;            // kTimeBucket: bucket width (> 0)
  // When set, a value outside the domain counts in the domain's last cell
  // (whose label this is) instead of being dropped: the listed values are
  // cells of their own, every other one is grouped.
  bool others_in_last = false;

  // Name used as the key in an output cell: "event", "time_bucket",
  // "sensitive" or the QI name.
  std::string Key() const;
};

// Each vehicle contributes at most max_per_cell to a cell and to at most
// max_cells cells of one query per release; the L1 sensitivity of the
// query's cell vector is their product (max_cells for kVehicles, whose
// contribution per cell is already 1).
struct ContributionBounds {
  uint64_t max_per_cell = 1;  // C
  uint64_t max_cells = 1;     // L
};

struct CountQuery {
  std::string name;
  CountUnit unit = CountUnit::kEvents;
  std::vector<Dimension> dimensions;
  // Events must match every entry; key "event" or "qi:<name>", value exact.
  std::map<std::string, std::string> filter;
  ContributionBounds bounds;

  uint64_t Sensitivity() const;
};

// A KPI numerator / denominator over the same dimensions, both counted with
// their own noise; the ratio is post-processing.
struct RatioQuery {
  std::string name;
  CountQuery numerator;
  CountQuery denominator;
};

// Largest number of cells a query may have (domain product), so that a
// misconfigured query cannot make a release publish millions of records.
inline constexpr uint64_t kMaxCellsPerQuery = 100'000;

// Empty when the query can run over an epoch of `epoch_ms`; otherwise why
// not (missing domain, zero bounds, too many cells, ...).
std::optional<std::string> ValidateQuery(const CountQuery& q, int64_t epoch_ms);
std::optional<std::string> ValidateRatio(const RatioQuery& r, int64_t epoch_ms);

const char* CountUnitName(CountUnit unit);

}  // namespace vanon::dp

#endif  // VANON_DP_COUNT_QUERY_H_
