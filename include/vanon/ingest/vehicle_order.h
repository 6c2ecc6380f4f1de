// Orders a release's buffered events by vehicle, as the tuple builder and
// the DP counts both need. It groups rather than sorts (a million events per
// 10 s epoch, a few thousand vehicles per partition): a comparison sort of
// the events was a tenth of a release share's compute.
#ifndef VANON_INGEST_VEHICLE_ORDER_H_
#define VANON_INGEST_VEHICLE_ORDER_H_

#include <cstdint>
#include <span>
#include <vector>

#include "vanon/ingest/buffered_event.h"

namespace vanon::ingest {

// `order`: indices into `events`, ordered by vehicle key (bytewise), then,
// when `by_time`, by event time, then by index (a stable sort of the indices
// by (vehicle_key[, ts_ms])). `ends`: each vehicle's run in it, vehicle v's
// events being order[ends[v-1] .. ends[v]) (from 0 for the first). Callers
// walk runs from here rather than find them again by comparing the keys of
// events scattered through memory (a cache miss and a memcmp per event).
struct VehicleRuns {
  std::vector<uint32_t> order;
  std::vector<uint32_t> ends;
};
VehicleRuns RunsByVehicle(std::span<const BufferedEvent> events, bool by_time);

}  // namespace vanon::ingest

#endif  // VANON_INGEST_VEHICLE_ORDER_H_
