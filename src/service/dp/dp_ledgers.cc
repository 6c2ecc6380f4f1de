#include "service/dp/dp_ledgers.h"

#include <stdexcept>
#include <utility>

#include "service/store/state_ledger_store.h"

namespace vanon::service {

struct PartitionLedgers::Open {
  StateLedgerStore store;
  std::unique_ptr<dp::BudgetLedger> ledger;
  Open(ShareState* s, int32_t partition) : store(s, partition) {}
};

PartitionLedgers::PartitionLedgers(ShareState* state, const dp::BudgetPolicy& policy)
    : state_(state), policy_(policy) {}

PartitionLedgers::~PartitionLedgers() = default;

dp::BudgetLedger& PartitionLedgers::Get(int32_t partition) {
  auto it = open_.find(partition);
  if (it == open_.end()) {
    auto b = std::make_unique<Open>(state_, partition);
    std::string error;
    b->ledger = dp::BudgetLedger::Open(policy_, &b->store, &error);
    if (!b->ledger) throw std::runtime_error("dp budget ledger: " + error);
    it = open_.emplace(partition, std::move(b)).first;
  }
  return *it->second->ledger;
}

std::optional<std::string> PartitionLedgers::Record(int32_t partition) const {
  auto it = open_.find(partition);
  if (it == open_.end()) return std::nullopt;
  return it->second->store.Record();
}

void PartitionLedgers::Forget(int32_t partition) { open_.erase(partition); }

}  // namespace vanon::service
