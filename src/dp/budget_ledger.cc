#include "vanon/dp/budget_ledger.h"

#include <algorithm>
#include <vector>

namespace vanon::dp {

std::unique_ptr<BudgetLedger> BudgetLedger::Open(const BudgetPolicy& policy, LedgerStore* store, std::string* error) {
  if (policy.period_ms <= 0 || policy.period_total.IsZero() || policy.per_release.IsZero() ||
      policy.per_release > policy.period_total) {
    *error = "dp budget: need period > 0 and 0 < epsilon per release <= budget per period";
    return nullptr;
  }
  std::vector<LedgerEntry> loaded;
  if (!store->LoadAll(&loaded, error)) return nullptr;
  std::unique_ptr<BudgetLedger> ledger(new BudgetLedger(policy, store));
  for (const LedgerEntry& e : loaded) ledger->entries_[e.release_id] = e;
  return ledger;
}

int64_t BudgetLedger::EffectiveNow(int64_t now_ms) const {
  for (const auto& [id, e] : entries_) now_ms = std::max(now_ms, e.release_ts_ms);
  return now_ms;
}

Epsilon BudgetLedger::SpentInWindow(int64_t effective_now_ms) const {
  int64_t nanos = 0;
  for (const auto& [id, e] : entries_) {
    if (e.release_ts_ms > effective_now_ms - policy_.period_ms) nanos += e.epsilon_nanos;
  }
  return Epsilon::FromNanos(nanos);
}

void BudgetLedger::Prune(int64_t effective_now_ms) {
  // Safe because the effective clock never goes back: an entry out of the
  // window now is out of every later window too. Failure to erase only
  // leaves an entry that no longer counts.
  std::string ignored;
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->second.release_ts_ms <= effective_now_ms - policy_.period_ms && store_->Erase(it->first, &ignored)) {
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
}

SpendResult BudgetLedger::TrySpend(uint64_t release_id, int64_t now_ms, Epsilon epsilon) {
  const int64_t now = EffectiveNow(now_ms);
  SpendResult r;
  auto finish = [&](SpendOutcome outcome, std::string message) {
    r.outcome = outcome;
    r.spent = SpentInWindow(now);
    r.remaining = policy_.period_total - r.spent;
    r.message = std::move(message);
    return r;
  };
  const std::string release = "release " + std::to_string(release_id);

  if (auto it = entries_.find(release_id); it != entries_.end()) {
    r.entry = it->second;
    return finish(SpendOutcome::kAlreadySpent, "dp budget: " + release + " was already charged epsilon " +
                                                   Epsilon::FromNanos(it->second.epsilon_nanos).ToString() +
                                                   "; republishing its stored counts");
  }
  if (epsilon.IsZero() || epsilon > policy_.per_release) {
    return finish(SpendOutcome::kOverReleaseCap, "dp budget: " + release + " asks for epsilon " + epsilon.ToString() +
                                                     ", the per-release cap is " + policy_.per_release.ToString() +
                                                     "; DP counts not published");
  }
  Prune(now);
  const Epsilon spent = SpentInWindow(now);
  if (spent + epsilon > policy_.period_total) {
    return finish(SpendOutcome::kExhausted, "dp budget exhausted: " + release + " needs epsilon " + epsilon.ToString() +
                                                ", spent " + spent.ToString() + " of " +
                                                policy_.period_total.ToString() +
                                                " in the rolling period; DP counts paused until " +
                                                std::to_string(NextAvailableMs(now, epsilon)) + " ms");
  }
  const LedgerEntry entry{release_id, now, epsilon.nanos()};
  std::string error;
  if (!store_->Put(entry, &error)) {
    return finish(SpendOutcome::kStoreError,
                  "dp budget: cannot record " + release + " (" + error + "); DP counts not published");
  }
  entries_[release_id] = entry;
  r.entry = entry;
  return finish(SpendOutcome::kSpent, "");
}

bool BudgetLedger::Record(const LedgerEntry& entry, std::string* error) {
  if (entries_.count(entry.release_id)) return true;
  if (!store_->Put(entry, error)) return false;
  entries_[entry.release_id] = entry;
  return true;
}

bool BudgetLedger::Charged(uint64_t release_id, int64_t now_ms) const {
  auto it = entries_.find(release_id);
  return it != entries_.end() && it->second.release_ts_ms > EffectiveNow(now_ms) - policy_.period_ms;
}

BudgetStatus BudgetLedger::Status(int64_t now_ms) const {
  const int64_t now = EffectiveNow(now_ms);
  BudgetStatus s;
  s.budget = policy_.period_total;
  s.spent = SpentInWindow(now);
  s.remaining = policy_.period_total - s.spent;
  s.exhausted = s.spent + policy_.per_release > policy_.period_total;
  return s;
}

int64_t BudgetLedger::NextAvailableMs(int64_t now_ms, Epsilon epsilon) const {
  const int64_t now = EffectiveNow(now_ms);
  std::vector<LedgerEntry> live;
  for (const auto& [id, e] : entries_) {
    if (e.release_ts_ms > now - policy_.period_ms) live.push_back(e);
  }
  std::sort(live.begin(), live.end(),
            [](const LedgerEntry& a, const LedgerEntry& b) { return a.release_ts_ms < b.release_ts_ms; });
  int64_t spent = 0;
  for (const LedgerEntry& e : live) spent += e.epsilon_nanos;
  int64_t t = now;
  // Drop the oldest entries until the spend fits; the window first excludes
  // an entry at its timestamp + period.
  for (const LedgerEntry& e : live) {
    if (spent + epsilon.nanos() <= policy_.period_total.nanos()) break;
    spent -= e.epsilon_nanos;
    t = e.release_ts_ms + policy_.period_ms;
  }
  return t;
}

const char* SpendOutcomeName(SpendOutcome outcome) {
  switch (outcome) {
    case SpendOutcome::kSpent:
      return "spent";
    case SpendOutcome::kAlreadySpent:
      return "already_spent";
    case SpendOutcome::kExhausted:
      return "exhausted";
    case SpendOutcome::kOverReleaseCap:
      return "over_release_cap";
    case SpendOutcome::kStoreError:
      return "store_error";
  }
  return "?";
}

}  // namespace vanon::dp
