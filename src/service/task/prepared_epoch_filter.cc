#include "service/task/prepared_epoch_filter.h"

#include <utility>
#include <vector>

#include "vanon/state/state_store.h"

namespace vanon::service {

PreparedEpochFilter PreparedEpochFilter::Load(const state::StateStore& store, int32_t partition) {
  PreparedEpochFilter filter;
  store.ScanReleasesNewestFirst(partition, [&](int64_t release, const state::ReleaseLogEntry& e) {
    if (e.status == state::ReleaseStatus::kPrepared && e.epoch_offsets) {
      filter = PreparedEpochFilter(release, *e.epoch_offsets);
    }
    return false;  // only the newest entry can be in flight
  });
  return filter;
}

release::Arrival PreparedEpochFilter::Classify(const release::EpochClock& clock, int64_t ts_ms, int64_t offset,
                                               release::Arrival by_clock) const {
  if (!epoch_ || clock.EpochOf(ts_ms) != *epoch_) return by_clock;
  // Applied (the clock closed it): the clock's "late" holds again.
  const std::optional<int64_t> open = clock.first_open_epoch();
  if (open && *open > *epoch_) return by_clock;
  return offsets_.Contains(offset) ? release::Arrival::kOnTime : release::Arrival::kLate;
}

state::OffsetSet EpochOffsetsOf(const release::TakenEvents& taken, int64_t start_ms) {
  std::vector<int64_t> offsets;
  for (const release::EpochList& list : taken) {
    for (const auto& [ts, offset] : list.keys) {
      if (ts >= start_ms) offsets.push_back(offset);
    }
  }
  return state::OffsetSet::Of(offsets);
}

}  // namespace vanon::service
