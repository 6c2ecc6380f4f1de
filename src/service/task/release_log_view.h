// ReleaseLogView is a partition's release log as state holds it, seen from
// the partition's task: whether a release of an epoch was prepared (its
// seed, where its summary is read back) or committed before. The task is
// what knows its partition, so the runner asks the task, not the store.
// Read only: prepare and apply write the log in their state batches.
#ifndef VANON_SRC_SERVICE_TASK_RELEASE_LOG_VIEW_H_
#define VANON_SRC_SERVICE_TASK_RELEASE_LOG_VIEW_H_

#include <cstdint>
#include <optional>

#include "vanon/state/release_state.h"

namespace vanon::state {
class StateStore;
}  // namespace vanon::state

namespace vanon::service {

class ReleaseLogView {
 public:
  // store must outlive every call.
  ReleaseLogView(const state::StateStore& store, int32_t partition) : store_(&store), partition_(partition) {}

  // The entry of the partition's release of `epoch`, prepared or committed.
  std::optional<state::ReleaseLogEntry> Find(int64_t epoch) const;

 private:
  const state::StateStore* store_;
  int32_t partition_;
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_TASK_RELEASE_LOG_VIEW_H_
