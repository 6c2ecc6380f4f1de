#include "service/store/partition_guard.h"

#include <spdlog/spdlog.h>

#include <charconv>
#include <stdexcept>

#include "vanon/state/state_store.h"

namespace vanon::service {

PartitionGuard::PartitionGuard(state::StateStore* store, int32_t count) : stored_(count) {
  if (std::optional<std::string> v = store->GetMeta(state::kStoreWideMeta, kMetaName)) {
    int32_t n = 0;
    auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
    if (ec != std::errc() || end != v->data() + v->size() || n <= 0) {
      throw std::runtime_error("state: unreadable input partition count record");
    }
    stored_ = n;
    Check(count);
    return;
  }
  state::ReleaseWrite w(*store);
  w.PutMeta(state::kStoreWideMeta, kMetaName, std::to_string(count));
  store->Commit(w, state::Durability::kMachineCrash);
}

bool PartitionGuard::Check(int32_t count) {
  if (tripped_ || count == stored_) return !tripped_;
  tripped_ = true;
  detail_ = "input topic has " + std::to_string(count) + " partitions, state was written with " +
            std::to_string(stored_) + ": consumption stopped (RUNBOOK: VanonInputPartitionsChanged)";
  spdlog::error("{}; vehicles would move to partitions whose state does not know them", detail_);
  return false;
}

}  // namespace vanon::service
