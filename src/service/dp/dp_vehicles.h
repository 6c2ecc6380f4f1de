// Buffered events as the DP core counts them: grouped by vehicle (bounding
// is per vehicle), each event's QIs generalized to the cell labels the plan
// uses, and the raw sensitive value where a query has that dimension.
#ifndef VANON_SRC_SERVICE_DP_DP_VEHICLES_H_
#define VANON_SRC_SERVICE_DP_DP_VEHICLES_H_

#include <functional>
#include <span>
#include <string_view>

#include "service/dp/dp_settings.h"
#include "vanon/dp/event.h"
#include "vanon/ingest/buffered_event.h"

namespace vanon::service {

class VehicleEvents {
 public:
  // `settings` must outlive this object.
  explicit VehicleEvents(const DpSettings& settings) : settings_(settings) {}

  // Where buffered events carry the raw sensitive value (-1: nowhere).
  void SetSensitiveExtra(int index) { sensitive_extra_ = index; }

  // Calls `fn` once per vehicle of `events`, suppressed vehicles included,
  // with its events converted (their `vehicle` left empty: it is the call's
  // first argument). The span is valid during the call only.
  using Fn = std::function<void(std::string_view vehicle, std::span<const dp::DpEvent> events)>;
  void ForEach(std::span<const ingest::BufferedEvent> events, const Fn& fn) const;

 private:
  const DpSettings& settings_;
  int sensitive_extra_ = -1;
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_DP_DP_VEHICLES_H_
