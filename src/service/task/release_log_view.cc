#include "service/task/release_log_view.h"

#include "vanon/state/state_store.h"

namespace vanon::service {

std::optional<state::ReleaseLogEntry> ReleaseLogView::Find(int64_t epoch) const {
  return store_->GetRelease(partition_, epoch);
}

}  // namespace vanon::service
