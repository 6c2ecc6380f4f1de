// Buffered events as the DP core counts them: grouped by vehicle (bounding
// is per vehicle), each event's fields resolved to the ids of the counters'
// ValueIds: its name, its QIs generalized to the cell labels the plan uses,
// and the raw sensitive value where a query has that dimension.
//
// The events are read where they lie: no string is copied per event, and a
// vehicle's QIs (one shared copy, ingest::QiValues) are generalized and
// looked up once rather than per event.
#ifndef VANON_SRC_SERVICE_DP_DP_VEHICLES_H_
#define VANON_SRC_SERVICE_DP_DP_VEHICLES_H_

#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "service/dp/dp_settings.h"
#include "vanon/dp/value_ids.h"
#include "vanon/ingest/buffered_event.h"

namespace vanon::service {

// A release's events by vehicle: one entry per vehicle, vehicles in the
// order of their keys (bytewise), each entry the vehicle's events in any
// order. The release share's tuples list their events so.
using EventsByVehicle = std::span<const std::vector<const ingest::BufferedEvent*>>;

// `events` grouped so (ingest::RunsByVehicle), pointing into `events`.
std::vector<std::vector<const ingest::BufferedEvent*>> GroupByVehicle(std::span<const ingest::BufferedEvent> events);

class VehicleEvents {
 public:
  // `settings` must outlive this object.
  explicit VehicleEvents(const DpSettings& settings) : settings_(settings) {}

  // Where buffered events carry the raw sensitive value (-1: nowhere).
  void SetSensitiveExtra(int index) { sensitive_extra_ = index; }

  // Calls `fn` once per vehicle of `by_vehicle` with events, in order,
  // suppressed vehicles included, with its events resolved by `values`.
  // The vehicle's key and the events' trips point into the buffered events.
  using Fn = std::function<void(std::string_view vehicle, const dp::ResolvedEvents& events)>;
  void ForEach(EventsByVehicle by_vehicle, const dp::ValueIds& values, const Fn& fn) const;

 private:
  // Where a field of `values` is read from on a buffered event.
  struct Source {
    enum class Kind { kEventName, kQi, kSensitive, kMissing } kind;
    size_t qi = 0;  // kQi: index in settings_.qis
  };
  std::vector<Source> Sources(const dp::ValueIds& values) const;
  // ids[f] for the fields read from QIs, of an event with these QIs.
  void ResolveQis(const ingest::QiValues& qi, const dp::ValueIds& values, const std::vector<Source>& sources,
                  std::string* scratch, uint32_t* ids) const;

  const DpSettings& settings_;
  int sensitive_extra_ = -1;
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_DP_DP_VEHICLES_H_
