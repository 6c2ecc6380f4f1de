// ShareState over the service's RocksDB state::StateStore, and the step that turns
// a share's delta into its write batch: the adapter between the share's
// narrow view of state (share_state.h) and the store.
#ifndef VANON_SRC_SERVICE_STORE_STORE_SHARE_STATE_H_
#define VANON_SRC_SERVICE_STORE_STORE_SHARE_STATE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "service/store/share_state.h"

namespace vanon::state {
class ReleaseWrite;
class StateStore;
}  // namespace vanon::state

namespace vanon::service {

class StoreShareState final : public ShareState {
 public:
  explicit StoreShareState(state::StateStore* store) : store_(store) {}

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
  state::StateStore* store_;
};

// Appends the delta's operations to `w`: on each key in order (the ops of
// one family keyed by vehicle in key order, store_share_state.cc).
void AddShareDelta(const ShareDelta& delta, state::ReleaseWrite* w);

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_STORE_STORE_SHARE_STATE_H_
