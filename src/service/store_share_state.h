// ShareState over the service's RocksDB StateStore, and the step that turns
// a share's delta into its write batch: the adapter between the share's
// narrow view of state (share_state.h) and the store.
#ifndef VANON_SRC_SERVICE_STORE_SHARE_STATE_H_
#define VANON_SRC_SERVICE_STORE_SHARE_STATE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "share_state.h"

namespace vanon {

class ReleaseWrite;
class StateStore;

class StoreShareState final : public ShareState {
 public:
  explicit StoreShareState(StateStore* store) : store_(store) {}

  std::optional<std::string> GetMeta(int32_t partition, std::string_view name) const override;
  std::vector<std::optional<StoredSignature>> GetSignatures(int32_t partition,
                                                            const std::vector<std::string>& vehicles) const override;
  void ScanSignatures(int32_t partition, const SignatureVisitor& fn) const override;
  std::vector<WaitingTuple> LoadWaiting(int32_t partition) const override;
  void CommitMetaNow(int32_t partition, std::string_view name, std::string_view value) override;

 private:
  StateStore* store_;
};

// Appends the delta's operations to `w`, in order.
void AddShareDelta(const ShareDelta& delta, ReleaseWrite* w);

}  // namespace vanon

#endif  // VANON_SRC_SERVICE_STORE_SHARE_STATE_H_
