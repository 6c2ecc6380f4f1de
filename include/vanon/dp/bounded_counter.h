// True (not yet noisy) counts of one query for one release, with per-vehicle
// contribution bounding.
//
// Bounding happens per vehicle, so the caller hands over all events of one
// vehicle for the release in one AddVehicle() call (the service holds events
// keyed by vehicle anyway). Which cells a vehicle keeps when it touches more
// than L of them is decided by a keyed hash of (vehicle, cell): deterministic,
// so a republished release is identical, and independent of every other
// vehicle's data, which is what the sensitivity argument needs.

#ifndef VANON_DP_BOUNDED_COUNTER_H_
#define VANON_DP_BOUNDED_COUNTER_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "vanon/dp/count_query.h"
#include "vanon/dp/event.h"
#include "vanon/dp/value_ids.h"

namespace vanon::dp {

// A cell: one (dimension key, value) pair per dimension, in query order.
using Cell = std::vector<std::pair<std::string, std::string>>;

struct BoundingStats {
  uint64_t cut_per_cell = 0;   // units above C in a cell
  uint64_t cut_cells = 0;      // units in cells beyond the L kept ones
  uint64_t out_of_domain = 0;  // matching events whose cell is not in the domain
  uint64_t vehicles = 0;       // vehicles with at least one counted unit

  uint64_t cut() const { return cut_per_cell + cut_cells; }
};

class BoundedCounter {
 public:
  // `query` must pass ValidateQuery. Time buckets cover [epoch_start_ms,
  // epoch_end_ms). `selection_key` keys the hash that picks kept cells. The
  // counter reads events through a ValueIds of its own until Bind().
  BoundedCounter(CountQuery query, int64_t epoch_start_ms, int64_t epoch_end_ms, uint64_t selection_key);

  // All events of one vehicle in this release (their `vehicle` field is
  // ignored in favour of `vehicle`).
  void AddVehicle(std::string_view vehicle, std::span<const DpEvent> events);
  // The same with the vehicle's selection hash, VehicleHash(vehicle), given:
  // counters with the same selection key (a plan's) hash each vehicle once.
  void AddHashedVehicle(uint64_t vehicle_hash, std::span<const DpEvent> events);
  uint64_t VehicleHash(std::string_view vehicle) const;
  uint64_t selection_key() const { return selection_key_; }

  // Reads events through `values` from now on, which DpRelease shares among
  // its counters to resolve each event once for all of them: interns there
  // the values this counter's dimensions and filters name. Counts are kept.
  // A ValueIds changes only in Bind(), and copies of a counter share its
  // ValueIds: bind before the counter is copied or used on other threads.
  void Bind(std::shared_ptr<ValueIds> values);
  // AddHashedVehicle with the events resolved by the ValueIds bound last.
  void AddResolvedVehicle(uint64_t vehicle_hash, const ResolvedEvents& events);

  // Convenience for callers holding a flat list: groups by DpEvent::vehicle.
  void AddEvents(std::span<const DpEvent> events);

  const CountQuery& query() const { return query_; }
  size_t num_cells() const { return counts_.size(); }
  Cell CellAt(size_t index) const;
  uint64_t CountAt(size_t index) const { return counts_[index]; }
  const std::vector<uint64_t>& counts() const { return counts_; }
  const BoundingStats& stats() const { return stats_; }

  // For WindowCounter, which bounds a vehicle over several calls (epochs of
  // one DP window) and adds what it keeps here.
  static constexpr int64_t kNoMatch = -2;      // the event fails the filter
  static constexpr int64_t kOutOfDomain = -1;  // a value is outside the domain
  // The index of the event's cell, kNoMatch or kOutOfDomain.
  int64_t CellOf(const DpEvent& e) const;
  // (*cells)[k] = the cell of event k, resolved by the ValueIds bound last,
  // as AddResolvedVehicle reads it: one call per vehicle, not per event.
  void ResolvedCells(const ResolvedEvents& events, std::vector<int64_t>* cells) const;
  void AddBounded(size_t cell, uint64_t units) { counts_[cell] += units; }
  BoundingStats* mutable_stats() { return &stats_; }

 private:
  // The cell of an event, with id(field) the id values_ gives the event's
  // field: its index, kNoMatch or kOutOfDomain. The one place where filters,
  // domains and time buckets are applied. Fields are read as needed, so the
  // string entry points resolve none past a failed filter.
  template <typename IdOf>
  int64_t EventCell(const IdOf& id, int64_t ts_ms) const;
  // EventCell of event k of events, whose fields are already ids.
  int64_t ResolvedCell(const ResolvedEvents& events, size_t k) const;
  // Counts the vehicle's n events, event k in cell_of(k) and of trip
  // trip_of(k), within the bounds.
  template <typename CellOfEvent, typename TripOfEvent>
  void AddCells(uint64_t vehicle_hash, size_t n, const CellOfEvent& cell_of, const TripOfEvent& trip_of);
  // Bounds the vehicle's touched_ cells and adds what it keeps.
  void AddTouched(uint64_t vehicle_hash);

  CountQuery query_;
  int64_t epoch_start_ms_;
  int64_t epoch_end_ms_;
  uint64_t selection_key_;
  std::vector<size_t> radix_;  // domain size per dimension
  std::vector<uint64_t> counts_;
  BoundingStats stats_;
  // Const once bound: copies of the counter may read it on other threads.
  std::shared_ptr<const ValueIds> values_;
  // Each filter as (field, id); each dimension as its field (SIZE_MAX for a
  // time bucket) and its position per value id (-1: not in the domain; ids
  // interned after this counter's are not either).
  std::vector<std::pair<size_t, uint32_t>> bound_filters_;
  std::vector<std::pair<size_t, std::vector<int32_t>>> bound_dims_;
  // Scratch of AddCells, kept so that a release of many vehicles does not
  // allocate three vectors per vehicle and query.
  std::vector<std::pair<size_t, std::string_view>> touched_;       // (cell, trip)
  std::vector<std::pair<size_t, uint64_t>> raw_;                   // (cell, contribution)
  std::vector<std::tuple<uint64_t, size_t, uint64_t>> selection_;  // (hash, cell, contribution)
};

}  // namespace vanon::dp

#endif  // VANON_DP_BOUNDED_COUNTER_H_
