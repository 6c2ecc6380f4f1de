#include "service/task/partition_task.h"

#include <stdexcept>
#include <string>
#include <utility>

#include "service/store/record_names.h"
#include "vanon/ingest/buffered_event.h"
#include "vanon/release/payload_transformer.h"
#include "vanon/state/state_store.h"

namespace vanon::service {

namespace {
// The events kept in state: those waiting tuples own, inside their waiting
// records or (written before records carried them, or too large for one
// record) in the events family, and the open-epoch events a store written by
// an older version still holds. A key is in one place only: a release that
// moves an event into a record tombstones it in the family.
release::EventBuffer LoadEvents(const state::StateStore& store, const config::EpochConfig& epoch, int32_t partition,
                                release::PayloadTransformer* payload) {
  release::EventBuffer buffer(epoch.length_seconds * 1000);
  auto add = [&](int64_t ts, int64_t offset, std::string_view value) {
    release::KeyedEvent e{ts, offset, {}};
    uint8_t version = 0;
    if (!DecodeBufferedEvent(value, &e.event, &version)) {
      throw std::runtime_error("state: unreadable buffered event in partition " + std::to_string(partition));
    }
    if (version == ingest::kBufferedEventRawPayloadVersion) {  // stored by a version that transformed at release
      std::string raw = std::move(e.event.payload_json);
      e.event.payload_json.clear();
      payload->TransformInto(raw, &e.event.payload_json);
    }
    buffer.Add(std::move(e));
  };
  store.ScanEvents(partition, [&](int64_t ts, int64_t offset, std::string_view value) {
    add(ts, offset, value);
    return true;
  });
  store.ScanWaitingEvents(partition, add);
  return buffer;
}
}  // namespace

release::EpochClock StoredClockForReplay(const state::StateStore& store, const config::EpochConfig& config,
                                         int32_t partition) {
  release::EpochClock clock(config);
  if (auto saved = store.GetMeta(partition, kClockMeta)) {
    if (!clock.DecodeState(*saved)) {
      throw std::runtime_error("state: unreadable epoch clock of partition " + std::to_string(partition));
    }
  }
  clock.RewindToFirstOpen();
  return clock;
}

// In the order ingestion read them before tasks existed: progress, then the
// filter and the clock, then the buffered events.
PartitionTask::PartitionTask(const state::StateStore& store, const config::EpochConfig& epoch, int32_t partition,
                             release::PayloadTransformer* payload)
    : partition_(partition),
      progress_(store.LoadProgress(partition)),
      clock_(StoredClockForReplay(store, epoch, partition)),
      events_(LoadEvents(store, epoch, partition, payload)),
      release_state_(ReleaseStateMemory::Load(store, partition)),
      release_log_(store, partition) {
  PreparedEpochFilter filter = PreparedEpochFilter::Load(store, partition);
  if (filter.active()) filter_ = std::move(filter);
}

}  // namespace vanon::service
