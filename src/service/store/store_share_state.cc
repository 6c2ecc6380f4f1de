#include "service/store/store_share_state.h"

#include <type_traits>

#include "vanon/state/state_store.h"

namespace vanon::service {

std::optional<std::string> StoreShareState::GetMeta(int32_t partition, std::string_view name) const {
  return store_->GetMeta(partition, name);
}

std::vector<std::optional<state::StoredSignature>> StoreShareState::GetSignatures(
    int32_t partition, const std::vector<std::string>& vehicles) const {
  return store_->GetSignatures(partition, vehicles);
}

void StoreShareState::ScanSignatures(int32_t partition, const SignatureVisitor& fn) const {
  store_->ScanSignatures(partition, fn);
}

std::vector<std::optional<engine::ValueWindow>> StoreShareState::GetWindows(
    int32_t partition, const std::vector<std::string>& vehicles) const {
  return store_->GetWindows(partition, vehicles);
}

void StoreShareState::ScanWindows(int32_t partition, const WindowVisitor& fn) const {
  store_->ScanWindows(partition, fn);
}

std::vector<engine::WaitingTuple> StoreShareState::LoadWaiting(int32_t partition) const {
  return store_->LoadWaiting(partition);
}

bool StoreShareState::HasEventsBefore(int32_t partition, int64_t ts_ms) const {
  return store_->HasEventsBefore(partition, ts_ms);
}

void StoreShareState::CommitMetaNow(int32_t partition, std::string_view name, std::string_view value) {
  state::ReleaseWrite w(*store_);
  w.PutMeta(partition, name, value);
  store_->Commit(w, state::Durability::kMachineCrash);
}

void AddShareDelta(const ShareDelta& delta, state::ReleaseWrite* w) {
  const int32_t p = delta.partition;
  for (const ShareDelta::Op& op : delta.ops) {
    std::visit(
        [&](const auto& o) {
          using T = std::decay_t<decltype(o)>;
          if constexpr (std::is_same_v<T, ShareDelta::DeleteEventRange>) {
            w->DeleteEventRange(p, o.from_ms, o.to_ms);
          } else if constexpr (std::is_same_v<T, ShareDelta::DeleteEvent>) {
            w->DeleteEvent(p, o.ts_ms, o.offset);
          } else if constexpr (std::is_same_v<T, ShareDelta::PutEvent>) {
            w->PutEvent(p, o.ts_ms, o.offset, o.encoded);
          } else if constexpr (std::is_same_v<T, ShareDelta::PutSignature>) {
            w->PutSignature(p, o.vehicle, o.signature);
          } else if constexpr (std::is_same_v<T, ShareDelta::DeleteSignature>) {
            w->DeleteSignature(p, o.vehicle);
          } else if constexpr (std::is_same_v<T, ShareDelta::PutWaiting>) {
            w->PutWaiting(p, o.waiting, o.events);
          } else if constexpr (std::is_same_v<T, ShareDelta::DeleteWaiting>) {
            w->DeleteWaiting(p, o.vehicle);
          } else if constexpr (std::is_same_v<T, ShareDelta::PutWindow>) {
            w->PutWindow(p, o.vehicle, o.window);
          } else if constexpr (std::is_same_v<T, ShareDelta::DeleteWindow>) {
            w->DeleteWindow(p, o.vehicle);
          } else if constexpr (std::is_same_v<T, ShareDelta::PutMeta>) {
            w->PutMeta(p, o.name, o.value);
          } else {
            static_assert(std::is_same_v<T, ShareDelta::DeleteMeta>);
            w->DeleteMeta(p, o.name);
          }
        },
        op);
  }
}

}  // namespace vanon::service
