// The budget ledger of each input partition (docs/dp.md "One ledger per
// input partition"): one meta record per partition in the service's state,
// opened at first use and kept open, since every charge rewrites the record
// it mirrors.
#ifndef VANON_SRC_SERVICE_DP_DP_LEDGERS_H_
#define VANON_SRC_SERVICE_DP_DP_LEDGERS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "vanon/dp/budget_ledger.h"

namespace vanon::service {

class ShareState;

// Ledger ids. A release's charge has its epoch as id; the other charges set
// a bit of their own so that no two kinds of charge can share an id (the
// ledger answers kAlreadySpent for an id it holds).
inline constexpr uint64_t kTreeLedgerBit = uint64_t{1} << 63;          // | epoch: running totals' counters
inline constexpr uint64_t kWindowLedgerBit = uint64_t{1} << 62;        // | window index: a partition's window
inline constexpr uint64_t kGlobalWindowLedgerBit = uint64_t{1} << 61;  // | window index: a global window

// Not thread-safe: the publisher's lock (DpCore::mu) covers every call.
class PartitionLedgers {
 public:
  // `state` must outlive this object.
  PartitionLedgers(ShareState* state, const dp::BudgetPolicy& policy);
  ~PartitionLedgers();
  PartitionLedgers(const PartitionLedgers&) = delete;
  PartitionLedgers& operator=(const PartitionLedgers&) = delete;

  // Throws std::runtime_error when the partition's record cannot be read.
  dp::BudgetLedger& Get(int32_t partition);

  // The partition's record as the open ledger left it in state; nullopt
  // when its ledger was not opened since it was last forgotten.
  std::optional<std::string> Record(int32_t partition) const;

  // The partition's state was replaced: read its record again at next use.
  void Forget(int32_t partition);

 private:
  struct Open;

  ShareState* const state_;
  const dp::BudgetPolicy policy_;
  std::map<int32_t, std::unique_ptr<Open>> open_;
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_DP_DP_LEDGERS_H_
