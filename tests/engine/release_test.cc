#include "vanon/engine/release.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "test_schema.h"
#include "vanon/engine/checker.h"

namespace vanon::engine {
namespace {

using testing::TestSchema;

Tuple Car(const std::string& key, int32_t engine, int32_t year, int32_t seats, SensitiveId s) {
  return Tuple{key, {engine, year, seats}, s, 1};
}

void ExpectClean(ReleaseChecker& checker, const ReleaseInput& in, const ReleaseOutput& out) {
  const auto v = checker.Check(in, out);
  EXPECT_TRUE(v.empty()) << ::testing::PrintToString(v);
}

TEST(ReleaseTest, FirstReleaseFormsMUniqueGroupsByQi) {
  const Schema schema = TestSchema();
  ReleaseInput in;
  in.release_id = 1;
  in.params.m = 3;
  // Two QI clusters (BEV 2010 / Diesel 2025), each holding values 1, 2, 3.
  for (int i = 0; i < 6; ++i) {
    const bool electric = i < 3;
    in.tuples.push_back(Car("v" + std::to_string(i), electric ? 0 : 7, electric ? 2010 : 2025, electric ? 4 : 5,
                            static_cast<SensitiveId>(1 + i % 3)));
  }
  const ReleaseOutput out = ComputeRelease(schema, in);
  ReleaseChecker checker(schema);
  ExpectClean(checker, in, out);
  ASSERT_EQ(out.groups.size(), 2u);
  EXPECT_EQ(GroupLabels(schema, out.groups[0]), (std::vector<std::string>{"BEV", "[2010,2014]", "4"}));
  EXPECT_EQ(GroupLabels(schema, out.groups[1]), (std::vector<std::string>{"Diesel", "[2025,2029]", "5"}));
  EXPECT_EQ(out.new_signatures.size(), 6u);
  EXPECT_EQ(out.metrics.suppression_ratio, 0);
  EXPECT_EQ(out.metrics.counterfeits, 0u);
  EXPECT_EQ(out.metrics.min_distinct, 3u);
}

// Value 1 is held by half of 24 vehicles: groups of 4 distinct real values
// can keep only 4 * 4 = 16 of them (at most one value-1 tuple per group and
// 12 value-1 tuples means >= 12 groups, i.e. >= 48 slots for 24 tuples).
ReleaseInput SkewedRelease(uint32_t new_group_counterfeits) {
  ReleaseInput in;
  in.release_id = 1;
  in.params.m = 4;
  in.params.seed = 3;
  in.params.new_group_counterfeits = new_group_counterfeits;
  for (int i = 0; i < 24; ++i) {
    const SensitiveId value = i % 2 == 0 ? 1 : static_cast<SensitiveId>(2 + (i / 2) % 4);
    in.tuples.push_back(Car("s" + std::to_string(i), i % 8, 2000 + i, 1 + i % 9, value));
  }
  return in;
}

TEST(ReleaseTest, SkewedNewVehiclesWaitWithoutCounterfeits) {
  const Schema schema = TestSchema();
  const ReleaseInput in = SkewedRelease(0);
  const ReleaseOutput out = ComputeRelease(schema, in);
  ReleaseChecker checker(schema);
  ExpectClean(checker, in, out);
  EXPECT_EQ(out.metrics.counterfeits, 0u);
  EXPECT_EQ(out.metrics.published, 16u);
  EXPECT_EQ(out.waiting.size() + out.suppressed.size(), 8u);
}

TEST(ReleaseTest, CounterfeitSlotsInNewSignaturesPublishSkewedVehicles) {
  const Schema schema = TestSchema();
  const ReleaseInput in = SkewedRelease(2);
  const ReleaseOutput out = ComputeRelease(schema, in);
  ReleaseChecker checker(schema);
  ExpectClean(checker, in, out);
  EXPECT_EQ(out.metrics.published, 24u);
  EXPECT_TRUE(out.waiting.empty());
  EXPECT_TRUE(out.suppressed.empty());
  uint64_t counterfeits = 0;
  for (const Group& g : out.groups) {
    EXPECT_GE(g.members.size(), 2u);  // m - new_group_counterfeits real vehicles
    EXPECT_LE(g.counterfeits.size(), 2u);
    EXPECT_EQ(g.signature.size(), 4u);
    counterfeits += g.counterfeits.size();
  }
  // 12 groups (one per value-1 tuple) of 4 slots hold 24 real tuples.
  EXPECT_EQ(out.groups.size(), 12u);
  EXPECT_EQ(counterfeits, 24u);
  EXPECT_EQ(out.metrics.counterfeits, counterfeits);
}

TEST(ReleaseTest, KnownVehicleKeepsSignatureWithCounterfeitsOrIsSuppressed) {
  const Schema schema = TestSchema();
  ReleaseInput in;
  in.release_id = 5;
  in.params.m = 3;
  in.known_signatures = {{"a", {1, 2, 3}}, {"b", {1, 2, 3}}};
  in.tuples = {Car("a", 0, 2010, 4, 2), Car("b", 0, 2011, 4, 7)};
  const ReleaseOutput out = ComputeRelease(schema, in);
  ReleaseChecker checker(schema);
  ExpectClean(checker, in, out);
  ASSERT_EQ(out.groups.size(), 1u);
  EXPECT_EQ(out.groups[0].members, (std::vector<TupleRef>{0}));
  EXPECT_EQ(out.groups[0].signature, (Signature{1, 2, 3}));
  EXPECT_EQ(out.groups[0].counterfeits, (std::vector<SensitiveId>{1, 3}));
  ASSERT_EQ(out.suppressed.size(), 1u);
  EXPECT_EQ(out.suppressed[0].ref, 1u);
  EXPECT_EQ(out.suppressed[0].reason, SuppressReason::kSignatureConflict);
  EXPECT_TRUE(out.new_signatures.empty());
  EXPECT_NEAR(out.metrics.counterfeit_ratio, 2.0 / 3, 1e-12);
}

TEST(ReleaseTest, NewVehicleFillsFreeSlotBeforeCounterfeit) {
  const Schema schema = TestSchema();
  ReleaseInput in;
  in.release_id = 5;
  in.params.m = 3;
  in.known_signatures = {{"a", {1, 2, 3}}};
  in.tuples = {Car("a", 0, 2010, 4, 2), Car("new", 1, 2012, 4, 3)};
  const ReleaseOutput out = ComputeRelease(schema, in);
  ReleaseChecker checker(schema);
  ExpectClean(checker, in, out);
  ASSERT_EQ(out.groups.size(), 1u);
  EXPECT_EQ(out.groups[0].members, (std::vector<TupleRef>{0, 1}));
  EXPECT_EQ(out.groups[0].counterfeits, (std::vector<SensitiveId>{1}));
  ASSERT_EQ(out.new_signatures.size(), 1u);
  EXPECT_EQ(out.new_signatures[0].first, "new");
  EXPECT_EQ(out.new_signatures[0].second, (Signature{1, 2, 3}));
  EXPECT_EQ(GroupLabels(schema, out.groups[0])[0], "Electric");
}

TEST(ReleaseTest, UnplaceableNewVehiclesWaitThenAreSuppressed) {
  const Schema schema = TestSchema();
  ReleaseInput in;
  in.release_id = 1;
  in.params.m = 2;
  in.params.max_delay = 1;
  // Four tuples with value 9 and one with value 8: one 2-unique group of
  // {8, 9} is possible, three tuples of value 9 must wait.
  for (int i = 0; i < 4; ++i) in.tuples.push_back(Car("n" + std::to_string(i), 0, 2010, 4, 9));
  in.tuples.push_back(Car("x", 0, 2010, 4, 8));
  ReleaseChecker checker(schema);
  const ReleaseOutput out = ComputeRelease(schema, in);
  ExpectClean(checker, in, out);
  EXPECT_EQ(out.groups.size(), 1u);
  EXPECT_EQ(out.waiting.size(), 3u);
  EXPECT_EQ(out.metrics.waiting, 3u);
  EXPECT_EQ(out.metrics.tuples, 2u);  // waiting tuples are not yet in |T|

  ReleaseInput next;
  next.release_id = 2;
  next.params = in.params;
  testing::CarryState(in, out, &next);
  const ReleaseOutput out2 = ComputeRelease(schema, next);
  ExpectClean(checker, next, out2);
  EXPECT_EQ(out2.metrics.suppressed_by_reason[static_cast<int>(SuppressReason::kDelay)], 3u);
  EXPECT_TRUE(out2.waiting.empty());
}

// docs/release.md, "Waiting tuples": a waiting tuple whose vehicle comes
// back with a new tuple is suppressed (as delay) at once, even though its
// delay is not up; the vehicle's new tuple takes its place.
TEST(ReleaseTest, WaitingTupleIsSupersededByItsVehiclesNewTuple) {
  const Schema schema = TestSchema();
  ReleaseInput in;
  in.release_id = 1;
  in.params.m = 2;
  in.params.max_delay = 3;
  for (int i = 0; i < 4; ++i) in.tuples.push_back(Car("n" + std::to_string(i), 0, 2010, 4, 9));
  in.tuples.push_back(Car("x", 0, 2010, 4, 8));
  ReleaseChecker checker(schema);
  const ReleaseOutput out = ComputeRelease(schema, in);
  ExpectClean(checker, in, out);
  ASSERT_EQ(out.waiting.size(), 3u);

  ReleaseInput next;
  next.release_id = 2;  // inside every waiting tuple's delay (1 + 3)
  next.params = in.params;
  testing::CarryState(in, out, &next);
  const std::string back = ResolveTuple(in, out.waiting[0].ref).vehicle;
  next.tuples = {Car(back, 0, 2010, 4, 9)};
  const ReleaseOutput out2 = ComputeRelease(schema, next);
  ExpectClean(checker, next, out2);
  size_t superseded = 0;
  for (const Suppressed& s : out2.suppressed) {
    if (s.ref >= next.tuples.size() && ResolveTuple(next, s.ref).vehicle == back) {
      EXPECT_EQ(s.reason, SuppressReason::kDelay);
      ++superseded;
    }
  }
  EXPECT_EQ(superseded, 1u);
  // The new tuple (value 9 again, still unplaceable) waits in its place,
  // its delay counted from this release.
  size_t new_waits = 0;
  for (const StillWaiting& w : out2.waiting) {
    if (ResolveTuple(next, w.ref).vehicle != back) continue;
    EXPECT_LT(w.ref, next.tuples.size()) << "the old waiting tuple is still waiting";
    EXPECT_EQ(w.first_release, 2u);
    ++new_waits;
  }
  EXPECT_EQ(new_waits, 1u);
}

TEST(ReleaseTest, InvalidAndDuplicateTuplesAreIneligible) {
  const Schema schema = TestSchema();
  ReleaseInput in;
  in.release_id = 1;
  in.params.m = 2;
  in.tuples = {Car("a", 0, 2010, 4, 1), Car("b", 0, 2010, 4, 2), Car("a", 0, 2010, 4, 3), Car("c", 99, 2010, 4, 3),
               Tuple{"d", {0, 2010}, 1, 1}};
  const ReleaseOutput out = ComputeRelease(schema, in);
  ReleaseChecker checker(schema);
  ExpectClean(checker, in, out);
  EXPECT_EQ(out.metrics.suppressed_by_reason[static_cast<int>(SuppressReason::kIneligible)], 3u);
  EXPECT_EQ(out.metrics.published, 2u);
}

// A VIN the decoding table does not know has unknown QIs (privacy-model.md
// section 1): it is published, and its group is generalized to the root on
// exactly those attributes.
TEST(ReleaseTest, UnknownQiIsPublishedUnderTheRoot) {
  const Schema schema = TestSchema();
  ReleaseInput in;
  in.release_id = 1;
  in.params.m = 3;
  for (int i = 0; i < 9; ++i) {
    in.tuples.push_back(Car("k" + std::to_string(i), 7, 2025, 5, static_cast<SensitiveId>(1 + i % 3)));
  }
  in.tuples.push_back(Car("k9", 7, 2025, 5, 3));
  in.tuples.push_back(Car("u-engine", kUnknownQiCode, 2025, 5, 1));
  in.tuples.push_back(Car("u-all", kUnknownQiCode, kUnknownQiCode, kUnknownQiCode, 2));
  const ReleaseOutput out = ComputeRelease(schema, in);
  ReleaseChecker checker(schema);
  ExpectClean(checker, in, out);
  EXPECT_TRUE(out.suppressed.empty());
  EXPECT_EQ(out.metrics.published, 12u);
  const TupleRef engine_only = 10, all = 11;
  bool saw_engine_only = false, saw_all = false;
  for (const Group& g : out.groups) {
    const std::vector<std::string> labels = GroupLabels(schema, g);
    const bool has_engine_only = std::count(g.members.begin(), g.members.end(), engine_only) > 0;
    const bool has_all = std::count(g.members.begin(), g.members.end(), all) > 0;
    saw_engine_only |= has_engine_only;
    saw_all |= has_all;
    if (has_engine_only || has_all) {
      EXPECT_EQ(labels[0], "*");
    }
    if (has_all) {
      EXPECT_EQ(g.qi[1], schema.RootCover(1));
      EXPECT_EQ(g.qi[2], schema.RootCover(2));
    }
    // Groups without an unknown value keep their exact labels.
    if (!has_engine_only && !has_all) {
      EXPECT_EQ(labels[0], "Diesel");
    }
  }
  EXPECT_TRUE(saw_engine_only && saw_all);
}

TEST(ReleaseTest, KAnonymityGroupsWithDistinctL) {
  const Schema schema = TestSchema();
  ReleaseInput in;
  in.release_id = 1;
  in.params.model = Model::kKAnonymity;
  in.params.k = 3;
  in.params.l = 2;
  for (int i = 0; i < 12; ++i) {
    in.tuples.push_back(
        Car("k" + std::to_string(i), i % 8, 2000 + 2 * i, 1 + i % 9, static_cast<SensitiveId>(i % 3 == 0 ? 1 : 2)));
  }
  const ReleaseOutput out = ComputeRelease(schema, in);
  ReleaseChecker checker(schema);
  ExpectClean(checker, in, out);
  EXPECT_GE(out.groups.size(), 2u);
  EXPECT_GE(out.metrics.min_group_size, 3u);
  EXPECT_GE(out.metrics.min_distinct, 2u);
  EXPECT_EQ(out.metrics.published, 12u);
  EXPECT_TRUE(out.new_signatures.empty());
}

TEST(ReleaseTest, DeterministicForSameInputAndSeed) {
  const Schema schema = TestSchema();
  testing::Rng rng(42);
  ReleaseInput in;
  in.release_id = 3;
  in.params.m = 4;
  in.params.seed = 7;
  for (int i = 0; i < 300; ++i) {
    in.tuples.push_back(Car("v" + std::to_string(rng.Below(1000)), static_cast<int32_t>(rng.Below(8)),
                            static_cast<int32_t>(2000 + rng.Below(30)), static_cast<int32_t>(1 + rng.Below(9)),
                            rng.Below(3) == 0 ? 1 : rng.Below(12)));
  }
  const ReleaseOutput a = ComputeRelease(schema, in);
  const ReleaseOutput b = ComputeRelease(schema, in);
  ASSERT_EQ(a.groups.size(), b.groups.size());
  for (size_t g = 0; g < a.groups.size(); ++g) {
    EXPECT_EQ(a.groups[g].members, b.groups[g].members);
    EXPECT_EQ(a.groups[g].qi, b.groups[g].qi);
    EXPECT_EQ(a.groups[g].counterfeits, b.groups[g].counterfeits);
  }
  EXPECT_EQ(a.new_signatures, b.new_signatures);
  ASSERT_EQ(a.suppressed.size(), b.suppressed.size());
  for (size_t i = 0; i < a.suppressed.size(); ++i) EXPECT_EQ(a.suppressed[i].ref, b.suppressed[i].ref);
  EXPECT_EQ(a.metrics.ncp, b.metrics.ncp);
}

}  // namespace
}  // namespace vanon::engine
