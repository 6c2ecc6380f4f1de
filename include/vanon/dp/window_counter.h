// True counts of one query over a DP window that spans several release
// epochs, with the contribution bounds applied per vehicle over the whole
// window.
//
// A window's count is published once, with noise scaled to C x L, so a
// vehicle must add at most C to a cell and touch at most L cells in the
// window, not per epoch. The counter therefore remembers, per vehicle, the
// cells it kept and the units (events, distinct trips, or 1) it added to
// each. Cells are kept first come, first served over the window; among the
// new cells of one call (one epoch) the keyed hash of BoundedCounter
// decides. Both depend on this vehicle's events only, which is what the
// sensitivity bound needs.
//
// The state holds true counts and vehicle keys: internal only (the service
// keeps it in its state store and replaces it only with a release's apply
// batch, so a recomputation after a crash sees the same state).

#ifndef VANON_DP_WINDOW_COUNTER_H_
#define VANON_DP_WINDOW_COUNTER_H_

#include <cstdint>
#include <iosfwd>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "vanon/dp/bounded_counter.h"

namespace vanon::dp {

class WindowCounter {
 public:
  WindowCounter(CountQuery query, int64_t window_start_ms, int64_t window_end_ms, uint64_t selection_key);

  // Events of one vehicle in one epoch of the window; any number of calls
  // per vehicle.
  void AddVehicle(std::string_view vehicle, std::span<const DpEvent> events);

  // As BoundedCounter's: the counters of a window share one ValueIds, so
  // that each event's fields are resolved once for all of them and the
  // vehicle hashed once, `vehicle_hash` = counter().VehicleHash(vehicle).
  // Bind before the counter is copied.
  void Bind(std::shared_ptr<ValueIds> values) { counter_.Bind(std::move(values)); }
  void AddResolvedVehicle(std::string_view vehicle, uint64_t vehicle_hash, const ResolvedEvents& events);
  // AddVehicle on every counter of a window, all bound to the ValueIds that
  // resolved `events`: the vehicle hashed once per selection key.
  static void AddVehicleToAll(std::span<WindowCounter> counters, std::string_view vehicle,
                              const ResolvedEvents& events);

  // The bounded window counts, cells and stats.
  const BoundedCounter& counter() const { return counter_; }

  // One line, no newline inside; Restore() reads it into a counter built
  // with the same query and window. False on malformed input.
  std::string Serialize() const;
  bool Restore(std::string_view text);

  // Incremental state (the service writes, per release, only the records of
  // the epoch's vehicles and the totals; docs/dp.md "DP windows"). The
  // totals: counts and stats without any vehicle.
  std::string SerializeTotals() const;
  bool RestoreTotals(std::string_view text);
  // One vehicle's kept cells, one line; "" when it holds none.
  std::string SerializeVehicle(std::string_view vehicle) const;
  // Loads one vehicle's state from earlier epochs before AddVehicle; the
  // totals already count it. False on malformed input.
  bool RestoreVehicle(std::string_view vehicle, std::string_view text);
  // Keys of the vehicles held (restored or added), in order.
  std::vector<std::string> Vehicles() const;

 private:
  struct Kept {
    uint64_t cell = 0;
    uint64_t units = 0;
    std::vector<uint64_t> trips;  // kTrips: hashes of the trips counted
  };
  // Bounds and adds the vehicle's n events, event k in cell_of(k) and of
  // trip trip_of(k).
  template <typename CellOfEvent, typename TripOfEvent>
  void AddCells(std::string_view vehicle, uint64_t vehicle_hash, size_t n, const CellOfEvent& cell_of,
                const TripOfEvent& trip_of);
  static void AppendKept(std::string* out, const std::vector<Kept>& kept);
  bool ReadKept(std::istream& in, std::vector<Kept>* kept) const;
  std::string TotalsText(const char* magic) const;
  bool ReadTotals(std::istream& in, const char* magic);

  uint64_t selection_key_;
  BoundedCounter counter_;
  std::map<std::string, std::vector<Kept>, std::less<>> kept_;  // by vehicle key
  // Scratch: the cells of the call's events, and (rank, cell, unit key) of
  // those counted.
  std::vector<int64_t> cells_;
  std::vector<std::tuple<uint64_t, uint64_t, uint64_t>> touched_;
};

}  // namespace vanon::dp

#endif  // VANON_DP_WINDOW_COUNTER_H_
