#include "service/store/release_state_memory.h"

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "vanon/state/state_store.h"

namespace vanon::service {

namespace {
bool SameWaiting(const engine::WaitingTuple& a, const engine::WaitingTuple& b) {
  return a.first_release == b.first_release && a.tuple.vehicle == b.tuple.vehicle && a.tuple.qi == b.tuple.qi &&
         a.tuple.sensitive == b.tuple.sensitive && a.tuple.events == b.tuple.events;
}
}  // namespace

ReleaseStateMemory::Key ReleaseStateMemory::KeyOf(std::string_view vehicle) {
  if (vehicle.size() != kVehicleKeyBytes) {
    throw std::runtime_error("state: a vehicle key has " + std::to_string(vehicle.size()) + " bytes, not " +
                             std::to_string(kVehicleKeyBytes));
  }
  Key k;
  std::memcpy(k.data(), vehicle.data(), k.size());
  return k;
}

ReleaseStateMemory::Entry ReleaseStateMemory::Entry::Of(const state::StoredSignature& s) {
  Entry e;
  e.first_release = s.first_release;
  e.last_release = s.last_release;
  e.size = static_cast<uint32_t>(s.values.size());
  engine::SensitiveId* out = e.inline_values.data();
  if (s.values.size() > kInlineValues) {
    e.more = std::make_unique<engine::SensitiveId[]>(s.values.size());
    out = e.more.get();
  }
  std::copy(s.values.begin(), s.values.end(), out);
  return e;
}

state::StoredSignature ReleaseStateMemory::Entry::ToStored() const {
  return state::StoredSignature{engine::Signature(values(), values() + size), first_release, last_release};
}

bool ReleaseStateMemory::Entry::operator==(const Entry& o) const {
  return first_release == o.first_release && last_release == o.last_release && size == o.size &&
         std::equal(values(), values() + size, o.values());
}

void ReleaseStateMemory::PutSignature(std::string_view vehicle, const state::StoredSignature& s) {
  signatures_.insert_or_assign(KeyOf(vehicle), Entry::Of(s));
}

ReleaseStateMemory ReleaseStateMemory::Load(const state::StateStore& store, int32_t partition) {
  ReleaseStateMemory m;
  store.ScanSignatures(partition, [&](std::string_view vehicle, const state::StoredSignature& s) {
    m.PutSignature(vehicle, s);
    return true;
  });
  for (engine::WaitingTuple& w : store.LoadWaiting(partition)) {
    const Key key = KeyOf(w.tuple.vehicle);
    m.waiting_.emplace(key, std::move(w));
  }
  return m;
}

void ReleaseStateMemory::Apply(const ShareDelta& delta) {
  for (const ShareDelta::Op& op : delta.ops) {
    if (const auto* put = std::get_if<ShareDelta::PutSignature>(&op)) {
      PutSignature(put->vehicle, put->signature);
    } else if (const auto* del = std::get_if<ShareDelta::DeleteSignature>(&op)) {
      signatures_.erase(KeyOf(del->vehicle));
    } else if (const auto* wput = std::get_if<ShareDelta::PutWaiting>(&op)) {
      waiting_.insert_or_assign(KeyOf(wput->waiting.tuple.vehicle), wput->waiting);
    } else if (const auto* wdel = std::get_if<ShareDelta::DeleteWaiting>(&op)) {
      auto it = waiting_.find(KeyOf(wdel->vehicle));
      if (it != waiting_.end()) waiting_.erase(it);
    }
  }
}

std::vector<std::optional<state::StoredSignature>> ReleaseStateMemory::GetSignatures(
    const std::vector<std::string>& vehicles) const {
  std::vector<std::optional<state::StoredSignature>> out(vehicles.size());
  for (size_t i = 0; i < vehicles.size(); ++i) {
    if (vehicles[i].size() != kVehicleKeyBytes) continue;  // never stored
    auto it = signatures_.find(KeyOf(vehicles[i]));
    if (it == signatures_.end()) continue;
    out[i] = it->second.ToStored();
  }
  return out;
}

// In key order, as the store's scan: the table has none, so the keys are
// sorted here (a scan runs once per 64 shares, and at a checker's resume).
void ReleaseStateMemory::ScanSignatures(const ShareState::SignatureVisitor& fn) const {
  std::vector<const std::pair<const Key, Entry>*> sorted;
  sorted.reserve(signatures_.size());
  for (const auto& kv : signatures_) sorted.push_back(&kv);
  // Bytewise, as RocksDB orders keys (std::array<char> would compare signed).
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
    return std::memcmp(a->first.data(), b->first.data(), a->first.size()) < 0;
  });
  for (const auto* kv : sorted) {
    if (!fn(std::string_view(kv->first.data(), kv->first.size()), kv->second.ToStored())) return;
  }
}

std::vector<engine::WaitingTuple> ReleaseStateMemory::LoadWaiting() const {
  std::vector<engine::WaitingTuple> out;
  out.reserve(waiting_.size());
  for (const auto& [vehicle, w] : waiting_) out.push_back(w);
  return out;
}

bool ReleaseStateMemory::operator==(const ReleaseStateMemory& o) const {
  if (signatures_ != o.signatures_ || waiting_.size() != o.waiting_.size()) return false;
  auto b = o.waiting_.begin();
  for (auto a = waiting_.begin(); a != waiting_.end(); ++a, ++b) {
    if (a->first != b->first || !SameWaiting(a->second, b->second)) return false;
  }
  return true;
}

ShareDelta ReleaseStateOps(ShareDelta delta) {
  ShareDelta out;
  out.partition = delta.partition;
  for (ShareDelta::Op& op : delta.ops) {
    if (auto* put = std::get_if<ShareDelta::PutWaiting>(&op)) {
      out.Add(ShareDelta::PutWaiting{std::move(put->waiting), {}});
    } else if (std::holds_alternative<ShareDelta::PutSignature>(op) ||
               std::holds_alternative<ShareDelta::DeleteSignature>(op) ||
               std::holds_alternative<ShareDelta::DeleteWaiting>(op)) {
      out.ops.push_back(std::move(op));
    }
  }
  return out;
}

}  // namespace vanon::service
