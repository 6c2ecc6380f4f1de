#include "vanon/dp/budget_ledger.h"

#include <gtest/gtest.h>

namespace vanon::dp {
namespace {

constexpr int64_t kDay = 86'400'000;

Epsilon Eps(const char* s) { return *Epsilon::Parse(s); }

BudgetPolicy Policy() {
  // 1.0 per 7 days at 0.3 per release: three releases fit, the fourth does not.
  return BudgetPolicy{Eps("0.3"), Eps("1"), 7 * kDay};
}

TEST(BudgetLedger, ExhaustionStopsPublication) {
  MemoryLedgerStore store;
  std::string error;
  auto ledger = BudgetLedger::Open(Policy(), &store, &error);
  ASSERT_TRUE(ledger) << error;
  for (uint64_t r = 1; r <= 3; ++r) {
    SpendResult s = ledger->TrySpend(r, r * kDay, Eps("0.3"));
    EXPECT_EQ(s.outcome, SpendOutcome::kSpent) << s.message;
    EXPECT_TRUE(s.publish());
  }
  EXPECT_FALSE(ledger->Status(3 * kDay).exhausted == false);  // 0.9 + 0.3 > 1
  SpendResult s = ledger->TrySpend(4, 4 * kDay, Eps("0.3"));
  EXPECT_EQ(s.outcome, SpendOutcome::kExhausted);
  EXPECT_FALSE(s.publish());
  EXPECT_NE(s.message.find("exhausted"), std::string::npos);
  EXPECT_EQ(s.spent, Eps("0.9"));
  EXPECT_EQ(s.remaining, Eps("0.1"));
  // A smaller spend that fits is still allowed; the refused one was not charged.
  EXPECT_EQ(ledger->TrySpend(5, 4 * kDay, Eps("0.1")).outcome, SpendOutcome::kSpent);
  EXPECT_EQ(ledger->Status(4 * kDay).remaining, Eps("0"));
}

TEST(BudgetLedger, RefusesAboveTheReleaseCapAndChargesARepublishOnce) {
  MemoryLedgerStore store;
  std::string error;
  auto ledger = BudgetLedger::Open(Policy(), &store, &error);
  EXPECT_EQ(ledger->TrySpend(1, kDay, Eps("0.31")).outcome, SpendOutcome::kOverReleaseCap);
  EXPECT_EQ(ledger->TrySpend(1, kDay, Eps("0.3")).outcome, SpendOutcome::kSpent);
  SpendResult again = ledger->TrySpend(1, kDay, Eps("0.3"));
  EXPECT_EQ(again.outcome, SpendOutcome::kAlreadySpent);
  EXPECT_EQ(again.spent, Eps("0.3"));
}

TEST(BudgetLedger, NewPeriodRestoresBudget) {
  MemoryLedgerStore store;
  std::string error;
  auto ledger = BudgetLedger::Open(Policy(), &store, &error);
  for (uint64_t r = 1; r <= 3; ++r) ledger->TrySpend(r, r * kDay, Eps("0.3"));
  EXPECT_EQ(ledger->TrySpend(4, 5 * kDay, Eps("0.3")).outcome, SpendOutcome::kExhausted);
  // Release 1 (day 1) leaves the 7-day window at day 8 exactly.
  EXPECT_EQ(ledger->NextAvailableMs(5 * kDay, Eps("0.3")), 8 * kDay);
  EXPECT_EQ(ledger->TrySpend(4, 8 * kDay - 1, Eps("0.3")).outcome, SpendOutcome::kExhausted);
  EXPECT_EQ(ledger->TrySpend(4, 8 * kDay, Eps("0.3")).outcome, SpendOutcome::kSpent);
  EXPECT_FALSE(ledger->Status(30 * kDay).exhausted);
  EXPECT_EQ(ledger->Status(30 * kDay).spent, Eps("0"));
}

TEST(BudgetLedger, ClockGoingBackwardsDoesNotReopenBudget) {
  MemoryLedgerStore store;
  std::string error;
  auto ledger = BudgetLedger::Open(Policy(), &store, &error);
  for (uint64_t r = 1; r <= 3; ++r) ledger->TrySpend(r, 100 * kDay, Eps("0.3"));
  EXPECT_EQ(ledger->TrySpend(4, 1 * kDay, Eps("0.3")).outcome, SpendOutcome::kExhausted);
}

TEST(BudgetLedger, RejectsInvalidPolicy) {
  MemoryLedgerStore store;
  std::string error;
  EXPECT_FALSE(BudgetLedger::Open(BudgetPolicy{Eps("2"), Eps("1"), kDay}, &store, &error));
  EXPECT_FALSE(BudgetLedger::Open(BudgetPolicy{Eps("0.1"), Eps("1"), 0}, &store, &error));
  EXPECT_FALSE(error.empty());
}

// Acceptance: a restart (a new ledger over the stored entries) does not
// restore budget; a new period does.
TEST(LedgerRestart, RestartDoesNotRestoreBudgetButNewPeriodDoes) {
  // Outlives each ledger object: a restart is a new ledger over the stored
  // entries (the service's RocksDB store: DpPublisherTest in tests/dp_service).
  MemoryLedgerStore persisted;
  std::string error;
  {
    LedgerStore* store = &persisted;
    ASSERT_TRUE(store) << error;
    auto ledger = BudgetLedger::Open(Policy(), store, &error);
    ASSERT_TRUE(ledger) << error;
    for (uint64_t r = 1; r <= 3; ++r) {
      ASSERT_EQ(ledger->TrySpend(r, r * kDay, Eps("0.3")).outcome, SpendOutcome::kSpent);
    }
    EXPECT_EQ(ledger->TrySpend(4, 4 * kDay, Eps("0.3")).outcome, SpendOutcome::kExhausted);
  }
  {
    LedgerStore* store = &persisted;
    ASSERT_TRUE(store) << error;
    auto ledger = BudgetLedger::Open(Policy(), store, &error);
    ASSERT_TRUE(ledger) << error;
    EXPECT_TRUE(ledger->Status(4 * kDay).exhausted);
    EXPECT_EQ(ledger->Status(4 * kDay).spent, Eps("0.9"));
    EXPECT_EQ(ledger->TrySpend(4, 4 * kDay, Eps("0.3")).outcome, SpendOutcome::kExhausted);
    EXPECT_EQ(ledger->TrySpend(2, 4 * kDay, Eps("0.3")).outcome, SpendOutcome::kAlreadySpent);
    EXPECT_EQ(ledger->TrySpend(4, 8 * kDay, Eps("0.3")).outcome, SpendOutcome::kSpent);
  }
  {
    LedgerStore* store = &persisted;
    std::vector<LedgerEntry> entries;
    ASSERT_TRUE(store->LoadAll(&entries, &error)) << error;
    // Release 1 was pruned once it left the window; 2, 3 and 4 remain.
    ASSERT_EQ(entries.size(), 3u);
    EXPECT_EQ(entries[2], (LedgerEntry{4, 8 * kDay, Eps("0.3").nanos()}));
  }
}

TEST(LedgerEntry, EncodingRoundTrips) {
  LedgerEntry e{0x0102030405060708ULL, 1763805600123, 123456789};
  EXPECT_EQ(DecodeLedgerEntry(EncodeLedgerEntry(e)), e);
  EXPECT_FALSE(DecodeLedgerEntry("short").has_value());
}

}  // namespace
}  // namespace vanon::dp
