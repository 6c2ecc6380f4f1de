#include "service/store/store_share_state.h"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

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

namespace {

// The families keyed by vehicle (signatures, waiting, windows): which one an
// op writes, and under which vehicle; 0 for any other op.
struct VehicleOp {
  int family = 0;
  std::string_view vehicle;
};
VehicleOp VehicleOpOf(const ShareDelta::Op& op) {
  return std::visit(
      [](const auto& o) -> VehicleOp {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, ShareDelta::PutSignature> || std::is_same_v<T, ShareDelta::DeleteSignature>) {
          return {1, o.vehicle};
        } else if constexpr (std::is_same_v<T, ShareDelta::PutWaiting>) {
          return {2, o.waiting.tuple.vehicle};
        } else if constexpr (std::is_same_v<T, ShareDelta::DeleteWaiting>) {
          return {2, o.vehicle};
        } else if constexpr (std::is_same_v<T, ShareDelta::PutWindow> || std::is_same_v<T, ShareDelta::DeleteWindow>) {
          return {3, o.vehicle};
        } else {
          return {};
        }
      },
      op);
}

// The first 8 bytes of a key as a number that sorts as the bytes do.
uint64_t OrderPrefix(std::string_view key) {
  uint64_t p = 0;
  for (size_t i = 0; i < sizeof(p); ++i) p = (p << 8) | (i < key.size() ? static_cast<uint8_t>(key[i]) : 0);
  return p;
}

void AddOp(int32_t p, const ShareDelta::Op& op, state::ReleaseWrite* w) {
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

}  // namespace

// Ops on the families keyed by vehicle go in key order, stably (a later op
// on a key still follows an earlier one). Those families' memtables keep an
// insert position per partition (VehicleKeyPartition, state_store.cc) and
// correct it from the lowest level that still brackets the next key, which
// is cheap only when keys come in order. In the engine's order every insert
// searched the skip list from the top, most of a large fleet's apply. Ops
// on different families never touch the same key, so moving one family's
// ops past another's changes nothing.
void AddShareDelta(const ShareDelta& delta, state::ReleaseWrite* w) {
  struct Keyed {
    int family;
    uint64_t prefix;
    std::string_view vehicle;
    uint32_t index;
  };
  std::vector<Keyed> keyed;
  for (size_t i = 0; i < delta.ops.size(); ++i) {
    const VehicleOp v = VehicleOpOf(delta.ops[i]);
    if (v.family == 0) {
      AddOp(delta.partition, delta.ops[i], w);
    } else {
      keyed.push_back({v.family, OrderPrefix(v.vehicle), v.vehicle, static_cast<uint32_t>(i)});
    }
  }
  std::sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
    if (a.family != b.family) return a.family < b.family;
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    if (a.vehicle != b.vehicle) return a.vehicle < b.vehicle;
    return a.index < b.index;
  });
  for (const Keyed& k : keyed) AddOp(delta.partition, delta.ops[k.index], w);
}

}  // namespace vanon::service
