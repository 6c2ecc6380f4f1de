#include "vanon/engine/checker.h"

#include <gtest/gtest.h>

#include "test_schema.h"

namespace vanon::engine {
namespace {

bool Mentions(const std::vector<std::string>& violations, const std::string& what) {
  for (const auto& v : violations) {
    if (v.find(what) != std::string::npos) return true;
  }
  return false;
}

enum Condition : SensitiveId { kGastritis = 1, kApnea = 2, kInsomnia = 3 };

Tuple Patient(const std::string& name, SensitiveId condition, int32_t seats) {
  return Tuple{name, {0, 2010, seats}, condition, 1};
}

Group TwoPatients(TupleRef a, TupleRef b, Signature signature) {
  return Group{{Cover{0, 0}, Cover{2010, 2014}, Cover{2, 3}}, {a, b}, std::move(signature), {}};
}

// Seed 000 Fig. 4.1: Bob grouped with Alice ({Gastritis, Apnea}), then with
// Charlotte ({Apnea, Insomnia}). Each release is 2-unique on its own; the
// intersection reveals Apnea, and the checker must say so.
TEST(CheckerTest, ReportsFigure41SignatureChange) {
  const Schema schema = testing::TestSchema();
  ReleaseChecker checker(schema);

  ReleaseInput r1;
  r1.release_id = 1;
  r1.params.m = 2;
  r1.tuples = {Patient("Alice", kGastritis, 2), Patient("Bob", kApnea, 3)};
  ReleaseOutput o1;
  o1.groups = {TwoPatients(0, 1, {kGastritis, kApnea})};
  o1.new_signatures = {{"Alice", {kGastritis, kApnea}}, {"Bob", {kGastritis, kApnea}}};
  o1.metrics.published = 2;
  EXPECT_TRUE(checker.Check(r1, o1).empty());

  ReleaseInput r2;
  r2.release_id = 2;
  r2.params.m = 2;
  r2.known_signatures = {{"Alice", {kGastritis, kApnea}}, {"Bob", {kGastritis, kApnea}}};
  r2.tuples = {Patient("Bob", kApnea, 3), Patient("Charlotte", kInsomnia, 2)};
  ReleaseOutput o2;
  o2.groups = {TwoPatients(0, 1, {kApnea, kInsomnia})};
  o2.new_signatures = {{"Charlotte", {kApnea, kInsomnia}}};
  o2.metrics.published = 2;
  const auto violations = checker.Check(r2, o2);
  EXPECT_TRUE(Mentions(violations, "release 2: group 0: signature changed from {1,2} to {2,3}"))
      << ::testing::PrintToString(violations);
}

// A checker resumed from stored state applies the cross-release rules from
// its first release on. With inputs that hold only their own vehicles'
// signatures, a vehicle of the release whose stored signature the input
// lacks is a violation (the engine would take it for a new vehicle), while
// published vehicles absent from the release are not.
TEST(CheckerTest, ResumedCheckerReportsAStoredSignatureMissingFromTheInput) {
  const Schema schema = testing::TestSchema();
  ReleaseChecker checker(schema, ReleaseChecker::Scope::kReleaseVehicles);
  checker.Resume({{"Alice", {kGastritis, kApnea}, 1}, {"Bob", {kGastritis, kApnea}, 1}}, {});

  ReleaseInput in;
  in.release_id = 2;
  in.params.m = 2;
  in.tuples = {Patient("Bob", kApnea, 3)};
  ReleaseOutput out;
  out.groups = {Group{{Cover{0, 0}, Cover{2010, 2014}, Cover{2, 3}}, {0}, {kGastritis, kApnea}, {kGastritis}}};
  out.metrics.published = 1;
  out.metrics.counterfeits = 1;
  in.known_signatures = {{"Bob", {kGastritis, kApnea}}};
  EXPECT_TRUE(checker.Verify(in, out).violations().empty()) << "Alice is not in the release";

  in.known_signatures.clear();  // Bob's stored signature is gone
  out.new_signatures = {{"Bob", {kGastritis, kApnea}}};
  const std::vector<std::string> v = checker.Verify(in, out).violations();
  EXPECT_TRUE(Mentions(v, "release 2: a published signature is missing from the input")) << ::testing::PrintToString(v);

  // Without the memory (a checker that starts at this release) the same
  // release passes: Bob looks new.
  ReleaseChecker fresh(schema, ReleaseChecker::Scope::kReleaseVehicles);
  EXPECT_TRUE(fresh.Verify(in, out).violations().empty());
}

TEST(CheckerTest, ReportsUncoveredQiMissingTupleAndBadCounterfeits) {
  const Schema schema = testing::TestSchema();
  ReleaseChecker checker(schema);
  ReleaseInput in;
  in.release_id = 7;
  in.params.m = 3;
  in.tuples = {Patient("A", kGastritis, 2), Patient("B", kApnea, 5), Patient("C", kInsomnia, 4)};
  ReleaseOutput out;
  Group g = TwoPatients(0, 1, {kGastritis, kApnea});  // seats [2,3] misses B's 5
  g.counterfeits = {kGastritis};                      // but A holds Gastritis
  out.groups = {g};
  out.metrics.published = 2;
  const auto v = checker.Check(in, out);
  EXPECT_TRUE(Mentions(v, "label of 'seats' does not cover a member"));
  EXPECT_TRUE(Mentions(v, "tuple 2 is unaccounted for"));
  EXPECT_TRUE(Mentions(v, "two tuples share a sensitive value"));
  EXPECT_TRUE(Mentions(v, "metrics miscount counterfeits"));
  EXPECT_TRUE(Mentions(v, "signature is not the set of published values"));
}

// Only the root covers an unknown QI: a group that publishes a narrower
// label for a vehicle whose value is unknown claims something false about it.
TEST(CheckerTest, UnknownQiMustBeCoveredByTheRoot) {
  const Schema schema = testing::TestSchema();
  ReleaseInput in;
  in.release_id = 7;
  in.params.m = 2;
  in.tuples = {Patient("A", kGastritis, 2), Patient("B", kApnea, 3)};
  in.tuples[1].qi[2] = kUnknownQiCode;
  ReleaseOutput out;
  out.groups = {TwoPatients(0, 1, {kGastritis, kApnea})};  // seats [2,3]
  out.new_signatures = {{"A", {kGastritis, kApnea}}, {"B", {kGastritis, kApnea}}};
  out.metrics.published = 2;
  ReleaseChecker narrow(schema);
  EXPECT_TRUE(Mentions(narrow.Check(in, out), "label of 'seats' does not cover a member"));
  out.groups[0].qi[2] = schema.RootCover(2);
  ReleaseChecker root(schema);
  EXPECT_FALSE(Mentions(root.Check(in, out), "does not cover a member"));
}

TEST(CheckerTest, ReportsEarlyDelayAndLostWaitingTuple) {
  const Schema schema = testing::TestSchema();
  ReleaseChecker checker(schema);
  ReleaseInput in;
  in.release_id = 1;
  in.params.m = 2;
  in.params.max_delay = 2;
  in.tuples = {Patient("A", kGastritis, 2), Patient("B", kApnea, 5)};
  ReleaseOutput out;
  out.suppressed = {{0, SuppressReason::kDelay}};
  out.waiting = {{1, 1}};
  out.metrics.suppressed_by_reason[1] = 1;
  EXPECT_TRUE(Mentions(checker.Check(in, out), "delay suppression before the delay ran out"));

  ReleaseInput next;  // B should come back as a waiting tuple, but does not
  next.release_id = 2;
  next.params = in.params;
  EXPECT_TRUE(Mentions(checker.Check(next, ReleaseOutput{}), "waiting tuples in the input differ"));
}

// A tuple may be suppressed before its delay runs out when a newer tuple of
// the same vehicle (current, or waiting since a later release) replaces it.
TEST(CheckerTest, AcceptsDelaySuppressionOfASupersededTuple) {
  const Schema schema = testing::TestSchema();
  ReleaseInput in;
  in.release_id = 3;
  in.params.m = 2;
  in.params.max_delay = 5;
  in.waiting = {{Patient("A", kGastritis, 2), 1}, {Patient("A", kApnea, 2), 2}};
  ReleaseOutput older;  // the tuple waiting since release 1 makes way for the one since 2
  older.suppressed = {{0, SuppressReason::kDelay}};
  older.waiting = {{1, 2}};
  older.metrics.suppressed_by_reason[1] = 1;
  EXPECT_FALSE(Mentions(ReleaseChecker(schema).Check(in, older), "delay suppression"));
  ReleaseOutput newer = older;  // the other way round nothing supersedes it
  newer.suppressed = {{1, SuppressReason::kDelay}};
  newer.waiting = {{0, 1}};
  EXPECT_TRUE(Mentions(ReleaseChecker(schema).Check(in, newer), "delay suppression before the delay ran out"));

  in.tuples = {Patient("A", kInsomnia, 2)};  // a current tuple supersedes both
  ReleaseOutput both;
  both.suppressed = {{1, SuppressReason::kDelay}, {2, SuppressReason::kDelay}};
  both.waiting = {{0, 3}};
  both.metrics.suppressed_by_reason[1] = 2;
  EXPECT_FALSE(Mentions(ReleaseChecker(schema).Check(in, both), "delay suppression"));
}

TEST(CheckerTest, AcceptsCorrectCounterfeitGroup) {
  const Schema schema = testing::TestSchema();
  ReleaseChecker checker(schema);
  ReleaseInput in;
  in.release_id = 3;
  in.params.m = 3;
  in.known_signatures = {{"A", {kGastritis, kApnea, kInsomnia}}};
  in.tuples = {Patient("A", kApnea, 2)};
  ReleaseOutput out;
  out.groups = {Group{
      {Cover{0, 0}, Cover{2010, 2014}, Cover{2, 2}}, {0}, {kGastritis, kApnea, kInsomnia}, {kGastritis, kInsomnia}}};
  out.metrics.published = 1;
  out.metrics.counterfeits = 2;
  const auto v = checker.Check(in, out);
  EXPECT_TRUE(v.empty()) << ::testing::PrintToString(v);
}

// One vehicle's two tuples in a group: the checker reports it, and under
// k-anonymity counts the group's vehicles, not its tuples.
TEST(CheckerTest, ReportsAVehicleTwiceInAGroupAndCountsVehiclesForK) {
  const Schema schema = testing::TestSchema();
  ReleaseInput in;
  in.release_id = 1;
  in.params.model = Model::kKAnonymity;
  in.params.k = 2;
  in.tuples = {Patient("Bob", kApnea, 3), Patient("Bob", kGastritis, 2), Patient("Alice", kInsomnia, 2)};
  // A group of tuples a and b, the third tuple suppressed.
  auto pair_of = [](TupleRef a, TupleRef b, TupleRef left_out) {
    ReleaseOutput out;
    out.groups = {Group{{Cover{0, 0}, Cover{2010, 2014}, Cover{2, 3}}, {a, b}, {}, {}}};
    out.suppressed = {{left_out, SuppressReason::kIneligible}};
    out.metrics.published = 2;
    out.metrics.suppressed_by_reason[static_cast<size_t>(SuppressReason::kIneligible)] = 1;
    return out;
  };
  const auto v = ReleaseChecker(schema).Check(in, pair_of(0, 1, 2));
  EXPECT_TRUE(Mentions(v, "release 1: group 0: a vehicle appears twice")) << ::testing::PrintToString(v);
  EXPECT_TRUE(Mentions(v, "release 1: group 0: fewer than k vehicles")) << ::testing::PrintToString(v);

  const auto none = ReleaseChecker(schema).Check(in, pair_of(0, 2, 1));
  EXPECT_FALSE(Mentions(none, "appears twice")) << ::testing::PrintToString(none);
  EXPECT_FALSE(Mentions(none, "fewer than k vehicles")) << ::testing::PrintToString(none);
}

}  // namespace
}  // namespace vanon::engine
