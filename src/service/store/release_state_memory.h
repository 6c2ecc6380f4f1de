// A partition's stored signatures and waiting tuples (without the events
// their records carry), kept in memory by the partition's task: every share
// of the partition reads them, and reading them from RocksDB (a MultiGet per
// share over the epoch's vehicles, a scan of the waiting records that skips
// their events) cost more than the lookups themselves. RocksDB stays the
// durable truth: this copy is loaded from the store when the task is
// created, and moved only by the signature and waiting operations of a
// share's delta once the apply batch that holds them is committed (Apply),
// so that after every apply it equals what the store holds. Nothing else
// writes these two families while a task exists: a restore from the
// changelog (StateStore::ReplacePartition) runs before the partition's task
// is created, and the task is dropped on revocation.
#ifndef VANON_SRC_SERVICE_STORE_RELEASE_STATE_MEMORY_H_
#define VANON_SRC_SERVICE_STORE_RELEASE_STATE_MEMORY_H_

#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "service/store/share_state.h"

namespace vanon::state {
class StateStore;
}  // namespace vanon::state

namespace vanon::service {

class ReleaseStateMemory {
 public:
  // Signature keys are vehicle tokens (ingest::HmacToken): a key of another
  // size makes Load and Apply throw std::runtime_error.
  static constexpr size_t kVehicleKeyBytes = 32;

  ReleaseStateMemory() = default;
  static ReleaseStateMemory Load(const state::StateStore& store, int32_t partition);

  // The delta's PutSignature, DeleteSignature, PutWaiting and
  // DeleteWaiting, in order (a later one wins on the same key, as in the
  // write batch); its other operations are not kept here.
  void Apply(const ShareDelta& delta);

  // As ShareState's, for this partition.
  std::vector<std::optional<state::StoredSignature>> GetSignatures(const std::vector<std::string>& vehicles) const;
  void ScanSignatures(const ShareState::SignatureVisitor& fn) const;
  std::vector<engine::WaitingTuple> LoadWaiting() const;

  size_t signatures() const { return signatures_.size(); }
  size_t waiting() const { return waiting_.size(); }

  // Same signatures and waiting tuples: a test compares the task's copy
  // with a fresh Load.
  bool operator==(const ReleaseStateMemory& o) const;

 private:
  using Key = std::array<char, kVehicleKeyBytes>;
  // Keys are HMACs: any eight of their bytes are already uniform.
  struct KeyHash {
    size_t operator()(const Key& k) const noexcept {
      uint64_t h = 0;
      std::memcpy(&h, k.data(), sizeof(h));
      return static_cast<size_t>(h);
    }
  };
  // StoredSignature without its key. Up to kInlineValues values (privacy.m's
  // default) are kept in the entry itself, so that the node is one
  // allocation of 96 bytes; about 110 bytes per vehicle with its bucket.
  static constexpr size_t kInlineValues = 5;
  struct Entry {
    int64_t first_release = 0;
    int64_t last_release = 0;
    uint32_t size = 0;
    std::array<engine::SensitiveId, kInlineValues> inline_values{};
    std::unique_ptr<engine::SensitiveId[]> more;  // all the values, when more than kInlineValues

    static Entry Of(const state::StoredSignature& s);
    const engine::SensitiveId* values() const { return more ? more.get() : inline_values.data(); }
    state::StoredSignature ToStored() const;
    bool operator==(const Entry& o) const;
  };

  // Bytewise, as the store orders vehicles (std::array<char> compares its
  // chars signed).
  struct KeyLess {
    bool operator()(const Key& a, const Key& b) const noexcept { return std::memcmp(a.data(), b.data(), a.size()) < 0; }
  };

  static Key KeyOf(std::string_view vehicle);
  void PutSignature(std::string_view vehicle, const state::StoredSignature& s);

  std::unordered_map<Key, Entry, KeyHash> signatures_;
  // Sorted by vehicle, as LoadWaiting returns them. Keyed by the array, not
  // a string: a 32-byte string is one more allocation per waiting tuple, and
  // a fleet that is onboarding has one for most of its vehicles.
  std::map<Key, engine::WaitingTuple, KeyLess> waiting_;
};

// The delta's operations ReleaseStateMemory::Apply keeps, without the
// events of waiting records: what a computed share carries to its apply.
ShareDelta ReleaseStateOps(ShareDelta delta);

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_STORE_RELEASE_STATE_MEMORY_H_
