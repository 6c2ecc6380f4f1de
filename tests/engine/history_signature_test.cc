// History-aware signatures (ReleaseParams::history_*): new signatures carry
// values their members played before, and new vehicles wait to learn.
#include <gtest/gtest.h>

#include <algorithm>

#include "test_schema.h"
#include "vanon/engine/checker.h"
#include "vanon/engine/release.h"

namespace vanon::engine {
namespace {

using testing::TestSchema;

// Five vehicles with values 1..5 in one QI cluster; each also played value 6
// (30% of its events), and vehicle 0 played value 7 (5%, under the share).
ReleaseInput FirstRelease(uint32_t history_slots) {
  ReleaseInput in;
  in.release_id = 1;
  in.params.m = 5;
  in.params.history_slots = history_slots;
  in.params.history_min_share = 0.1;
  for (uint32_t i = 0; i < 5; ++i) {
    in.tuples.push_back(Tuple{"v" + std::to_string(i), {0, 2010, 4}, 1 + i, 1});
    in.histories[in.tuples.back().vehicle] = {{1 + i, 13}, {6, 6}};
  }
  in.histories["v0"] = {{1, 13}, {6, 6}, {7, 1}};
  return in;
}

// Runs release 1, then release 2 in which vehicle 0 moved to value 6.
struct TwoReleases {
  ReleaseOutput first, second;
  std::vector<std::string> violations;
};

TwoReleases RunTwo(uint32_t history_slots) {
  const Schema schema = TestSchema();
  ReleaseChecker checker(schema);
  TwoReleases r;
  ReleaseInput in = FirstRelease(history_slots);
  r.first = ComputeRelease(schema, in);
  auto v = checker.Check(in, r.first);
  r.violations.insert(r.violations.end(), v.begin(), v.end());
  ReleaseInput next;
  next.release_id = 2;
  next.params = in.params;
  testing::CarryState(in, r.first, &next);
  next.tuples = in.tuples;
  next.histories = in.histories;
  next.tuples[0].sensitive = 6;
  r.second = ComputeRelease(schema, next);
  v = checker.Check(next, r.second);
  r.violations.insert(r.violations.end(), v.begin(), v.end());
  return r;
}

TEST(HistorySignatureTest, NewSignatureCarriesAValueItsMembersPlay) {
  const TwoReleases r = RunTwo(1);
  EXPECT_TRUE(r.violations.empty()) << ::testing::PrintToString(r.violations);
  ASSERT_EQ(r.first.groups.size(), 1u);
  EXPECT_EQ(r.first.groups[0].signature, (Signature{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(r.first.groups[0].counterfeits, (std::vector<SensitiveId>{6}));
  EXPECT_EQ(r.first.groups[0].members.size(), 5u);
  // Vehicle 0 moved to 6: still published, value 1 is now the counterfeit.
  EXPECT_EQ(r.second.metrics.suppressed_by_reason[0], 0u);
  EXPECT_EQ(r.second.metrics.published, 5u);
  ASSERT_EQ(r.second.groups.size(), 1u);
  EXPECT_EQ(r.second.groups[0].counterfeits, (std::vector<SensitiveId>{1}));
}

TEST(HistorySignatureTest, WithoutHistorySlotsTheMoveIsASignatureConflict) {
  const TwoReleases r = RunTwo(0);
  EXPECT_TRUE(r.violations.empty()) << ::testing::PrintToString(r.violations);
  EXPECT_EQ(r.first.groups[0].signature, (Signature{1, 2, 3, 4, 5}));
  EXPECT_EQ(r.second.metrics.suppressed_by_reason[0], 1u);
  EXPECT_EQ(r.second.metrics.published, 4u);
}

TEST(HistorySignatureTest, SlotsAreCappedAndSkipRareValues) {
  const Schema schema = TestSchema();
  ReleaseInput in = FirstRelease(3);
  const ReleaseOutput out = ComputeRelease(schema, in);
  ReleaseChecker checker(schema);
  EXPECT_TRUE(checker.Check(in, out).empty());
  // Value 7 is 5% of one member's events, under the 10% share: not added,
  // although two more slots were allowed.
  ASSERT_EQ(out.groups.size(), 1u);
  EXPECT_EQ(out.groups[0].signature, (Signature{1, 2, 3, 4, 5, 6}));
}

TEST(HistorySignatureTest, NewVehiclesWaitToLearnWithinTheirDelay) {
  const Schema schema = TestSchema();
  ReleaseChecker checker(schema);
  ReleaseInput in;
  in.params.m = 3;
  in.params.max_delay = 2;
  in.params.history_min_events = 10;
  // Three vehicles with a long history, three with 4 events each.
  for (uint32_t i = 0; i < 6; ++i) {
    in.tuples.push_back(Tuple{"w" + std::to_string(i), {7, 2025, 5}, 1 + i % 3, 1});
    in.histories[in.tuples.back().vehicle] = {{1 + i % 3, i < 3 ? 12u : 4u}};
  }
  for (uint64_t release = 1; release <= 3; ++release) {
    in.release_id = release;
    const ReleaseOutput out = ComputeRelease(schema, in);
    const auto violations = checker.Check(in, out);
    ASSERT_TRUE(violations.empty()) << ::testing::PrintToString(violations);
    if (release == 1) {
      EXPECT_EQ(out.metrics.published, 3u);
      EXPECT_EQ(out.waiting.size(), 3u);  // learning
    } else if (release == 2) {
      EXPECT_EQ(out.waiting.size(), 3u);  // still learning: 2 < 1 + max_delay
    } else {
      // Delay up: the short-history vehicles are placed, not suppressed.
      EXPECT_EQ(out.waiting.size(), 0u);
      EXPECT_EQ(out.metrics.published, 3u);
      EXPECT_EQ(out.metrics.suppression_ratio, 0);
    }
    ReleaseInput next;
    next.params = in.params;
    testing::CarryState(in, out, &next);
    // Only the learning vehicles come back, as waiting tuples, their
    // history unchanged (they are not active again).
    next.histories = in.histories;
    in = std::move(next);
  }
}

}  // namespace
}  // namespace vanon::engine

namespace vanon::engine {
namespace {

// The signature horizon: A (value 1 until release `published_until`, then 4)
// is suppressed as a conflict once its value moved; the caller drops A's
// signature at release `drop_at` and A joins two new vehicles in a new
// signature. Returns the checker's findings.
std::vector<std::string> DropSignatureAt(uint64_t horizon, uint64_t drop_at, uint64_t published_until = 1) {
  const Schema schema = testing::TestSchema();
  ReleaseChecker checker(schema);
  std::vector<std::string> found;
  ReleaseInput in;
  in.params.m = 3;
  in.params.signature_horizon = horizon;
  for (uint64_t release = 1; release <= drop_at; ++release) {
    in.release_id = release;
    in.tuples = {Tuple{"A", {0, 2010, 4}, release <= published_until ? 1u : 4u, 1}, Tuple{"B", {0, 2010, 4}, 2, 1},
                 Tuple{"C", {0, 2010, 4}, 3, 1}};
    if (release == drop_at) {
      in.known_signatures.erase("A");
      in.tuples.push_back(Tuple{"D", {0, 2011, 4}, 5, 1});
      in.tuples.push_back(Tuple{"E", {0, 2012, 4}, 6, 1});
    }
    const ReleaseOutput out = ComputeRelease(schema, in);
    const auto v = checker.Check(in, out);
    found.insert(found.end(), v.begin(), v.end());
    if (release == drop_at) {
      // A is published again, under a new signature.
      bool a_published = false;
      for (const auto& [vehicle, sig] : out.new_signatures) {
        a_published |= vehicle == "A" && sig == Signature{4, 5, 6};
      }
      if (!a_published) found.push_back("A was not published under a new signature");
    } else if (release > published_until && out.metrics.suppressed_by_reason[0] != 1) {
      found.push_back("A was not suppressed as a conflict");
    }
    ReleaseInput next;
    next.params = in.params;
    testing::CarryState(in, out, &next);
    in = std::move(next);
  }
  return found;
}

TEST(SignatureHorizonTest, CheckerAllowsDroppingASignatureOnlyAfterTheHorizon) {
  // A was last published in release 1: with a horizon of 2 its signature may
  // go from release 4 on, not in release 3, and never without a horizon.
  // Too early, A's new group also reads as a changed signature.
  auto has = [](const std::vector<std::string>& found, const std::string& what) {
    return std::find(found.begin(), found.end(), what) != found.end();
  };
  EXPECT_EQ(DropSignatureAt(2, 4), std::vector<std::string>{});
  const auto early = DropSignatureAt(2, 3);
  EXPECT_TRUE(has(early, "release 3: a published signature is missing from the input"));
  EXPECT_TRUE(has(early, "release 3: group 1: signature changed from {1,2,3} to {4,5,6}"));
  EXPECT_TRUE(has(DropSignatureAt(0, 4), "release 4: a published signature is missing from the input"));
}

TEST(SignatureHorizonTest, HorizonCountsFromTheLastPublicationNotTheFirst) {
  // A is published in releases 1 to 3, then suppressed. With a horizon of 2
  // its signature may go from release 6 on (more than 2 releases after its
  // last publication, 3), not in release 5, though release 5 is more than 2
  // after its first publication.
  auto has = [](const std::vector<std::string>& found, const std::string& what) {
    return std::find(found.begin(), found.end(), what) != found.end();
  };
  EXPECT_EQ(DropSignatureAt(2, 6, /*published_until=*/3), std::vector<std::string>{});
  const auto early = DropSignatureAt(2, 5, /*published_until=*/3);
  EXPECT_TRUE(has(early, "release 5: a published signature is missing from the input"));
  EXPECT_TRUE(has(early, "release 5: group 1: signature changed from {1,2,3} to {4,5,6}"));
}

}  // namespace
}  // namespace vanon::engine
