// The ShareState a share of one partition reads in the service: its
// signatures and waiting tuples from the partition's ReleaseStateMemory,
// everything else (meta records, value windows, the events family) from the
// store's ShareState underneath.
//
// Race-free without a lock: a partition has at most one share in flight
// (JobRegistry), its computing thread reads the memory only between the
// take of the share's events and the share's `computed` (both handed over
// under ReleaseQueues::mu), and the consuming thread writes it only at the
// apply of that same share (after `computed`, read under the same mutex)
// or when the task is created, before any of its shares exists. Shares of
// other partitions read other tasks' memory.
#ifndef VANON_SRC_SERVICE_STORE_CACHED_SHARE_STATE_H_
#define VANON_SRC_SERVICE_STORE_CACHED_SHARE_STATE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "service/store/release_state_memory.h"
#include "service/store/share_state.h"

namespace vanon::service {

class CachedShareState final : public ShareState {
 public:
  // Both must outlive this; memory is the state of `partition` only.
  CachedShareState(ShareState* base, const ReleaseStateMemory* memory, int32_t partition)
      : base_(base), memory_(memory), partition_(partition) {}

  std::optional<std::string> GetMeta(int32_t partition, std::string_view name) const override;
  std::vector<std::optional<state::StoredSignature>> GetSignatures(
      int32_t partition, const std::vector<std::string>& vehicles) const override;
  void ScanSignatures(int32_t partition, const SignatureVisitor& fn) const override;
  std::vector<std::optional<engine::ValueWindow>> GetWindows(int32_t partition,
                                                             const std::vector<std::string>& vehicles) const override;
  void ScanWindows(int32_t partition, const WindowVisitor& fn) const override;
  std::vector<engine::WaitingTuple> LoadWaiting(int32_t partition) const override;
  bool HasEventsBefore(int32_t partition, int64_t ts_ms) const override;
  void CommitMetaNow(int32_t partition, std::string_view name, std::string_view value) override;

 private:
  // Throws std::logic_error for another partition than the memory's.
  void CheckPartition(int32_t partition) const;

  ShareState* base_;
  const ReleaseStateMemory* memory_;
  const int32_t partition_;
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_STORE_CACHED_SHARE_STATE_H_
