// The privacy budget: epsilon per release and a total per rolling period.
//
// Every vehicle takes part in every release, so epsilons add up (sequential
// composition). The ledger records each release's spend in a LedgerStore and
// sums the entries whose release timestamp lies in the rolling window
// (now - period, now]. Entries are loaded at Open(), so a restart sees what
// was spent before it; nothing resets the ledger except time passing.
//
// The ledger's clock never runs backwards: "now" is taken as the maximum of
// the caller's timestamp and the newest entry, so a skewed or replayed
// timestamp cannot reopen budget that was already spent.

#ifndef VANON_DP_BUDGET_LEDGER_H_
#define VANON_DP_BUDGET_LEDGER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "vanon/dp/epsilon.h"
#include "vanon/dp/ledger_store.h"

namespace vanon::dp {

struct BudgetPolicy {
  Epsilon per_release;   // the most one release may spend
  Epsilon period_total;  // the most all releases in one window may spend
  int64_t period_ms = 30LL * 86'400'000;
};

enum class SpendOutcome {
  kSpent,           // recorded; publish
  kAlreadySpent,    // this release id was charged before (a republish); publish
                    // the values stored then, never fresh noise
  kExhausted,       // would exceed the period budget; do not publish
  kOverReleaseCap,  // asks for more than per_release; do not publish
  kStoreError,      // could not record; do not publish
};

struct SpendResult {
  SpendOutcome outcome = SpendOutcome::kStoreError;
  Epsilon spent;        // in the window, after this call
  Epsilon remaining;    // period_total - spent
  std::string message;  // one line for the log when not kSpent
  LedgerEntry entry;    // the charge recorded (kSpent) or found (kAlreadySpent)

  bool publish() const { return outcome == SpendOutcome::kSpent || outcome == SpendOutcome::kAlreadySpent; }
};

// For metrics and the health endpoint (vanon_dp_epsilon_*, vanon_dp_budget_exhausted).
struct BudgetStatus {
  Epsilon budget;
  Epsilon spent;
  Epsilon remaining;
  bool exhausted = false;  // the next release of per_release would be refused
};

class BudgetLedger {
 public:
  // Loads every entry from `store` (not owned; must outlive the ledger).
  // nullptr and *error set when the store cannot be read or the policy is
  // invalid (zero period or budget, per_release above period_total).
  static std::unique_ptr<BudgetLedger> Open(const BudgetPolicy& policy, LedgerStore* store, std::string* error);

  SpendResult TrySpend(uint64_t release_id, int64_t now_ms, Epsilon epsilon);
  // Records a charge made on this same budget by another ledger (an earlier
  // holder of it whose store this one does not share), as it was made:
  // never refused, counted in the rolling window from its own timestamp. A
  // release id already recorded is left as it is. False and *error on a
  // store error.
  bool Record(const LedgerEntry& entry, std::string* error);
  BudgetStatus Status(int64_t now_ms) const;
  // True while release_id's charge is in the rolling window at now_ms: what
  // it paid for may still be published.
  bool Charged(uint64_t release_id, int64_t now_ms) const;

  // When a refused release of `epsilon` would fit again (the earliest time
  // enough old entries leave the window), assuming nothing else is spent.
  int64_t NextAvailableMs(int64_t now_ms, Epsilon epsilon) const;

 private:
  BudgetLedger(const BudgetPolicy& policy, LedgerStore* store) : policy_(policy), store_(store) {}
  int64_t EffectiveNow(int64_t now_ms) const;
  Epsilon SpentInWindow(int64_t effective_now_ms) const;
  void Prune(int64_t effective_now_ms);

  BudgetPolicy policy_;
  LedgerStore* store_;
  std::map<uint64_t, LedgerEntry> entries_;  // by release id
};

const char* SpendOutcomeName(SpendOutcome outcome);

}  // namespace vanon::dp

#endif  // VANON_DP_BUDGET_LEDGER_H_
