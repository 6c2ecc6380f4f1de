// Shared signatures (ReleaseParams::shared_signatures): new vehicles join a
// few signatures held by many vehicles instead of one signature per group.
#include <gtest/gtest.h>

#include <set>

#include "test_schema.h"
#include "vanon/engine/checker.h"
#include "vanon/engine/release.h"

namespace vanon::engine {
namespace {

using testing::TestSchema;

// 24 vehicles in two QI clusters, values 1..4 in turn; m = 3.
ReleaseInput Fleet(uint32_t shared, uint32_t size) {
  ReleaseInput in;
  in.release_id = 1;
  in.params.m = 3;
  in.params.shared_signatures = shared;
  in.params.shared_signature_size = size;
  for (uint32_t i = 0; i < 24; ++i) {
    in.tuples.push_back(Tuple{"v" + std::to_string(100 + i), {static_cast<int32_t>(i % 2), 2010, 4}, 1 + i % 4, 1});
  }
  return in;
}

std::set<Signature> NewSignatures(const ReleaseOutput& out) {
  std::set<Signature> s;
  for (const auto& [vehicle, sig] : out.new_signatures) s.insert(sig);
  return s;
}

TEST(SharedSignatureTest, NewVehiclesShareOneSignatureOfTheConfiguredSize) {
  const Schema schema = TestSchema();
  const ReleaseInput in = Fleet(1, 4);
  const ReleaseOutput out = ComputeRelease(schema, in);
  ReleaseChecker checker(schema);
  const auto violations = checker.Check(in, out);
  EXPECT_TRUE(violations.empty()) << ::testing::PrintToString(violations);
  EXPECT_EQ(out.metrics.published, 24u);
  EXPECT_EQ(NewSignatures(out), (std::set<Signature>{{1, 2, 3, 4}}));
}

TEST(SharedSignatureTest, WithoutItEveryGroupHasMValues) {
  const Schema schema = TestSchema();
  const ReleaseInput in = Fleet(0, 4);
  const ReleaseOutput out = ComputeRelease(schema, in);
  ReleaseChecker checker(schema);
  EXPECT_TRUE(checker.Check(in, out).empty());
  for (const Signature& s : NewSignatures(out)) EXPECT_EQ(s.size(), 3u);
}

// Release 1: six vehicles under {1,2,3} (two full groups), three under
// {2,3,4}. Release 2: the same vehicles and three new ones with values 2, 3
// and 4. Returns release 2's output.
ReleaseOutput JoinAfterHeldSignatures(uint32_t shared, std::vector<std::string>* violations) {
  const Schema schema = TestSchema();
  ReleaseChecker checker(schema);
  ReleaseInput in;
  in.release_id = 1;
  in.params.m = 3;
  const SensitiveId held[] = {1, 2, 3, 1, 2, 3, 2, 3, 4};
  for (uint32_t i = 0; i < 9; ++i) {
    in.tuples.push_back(Tuple{"k" + std::to_string(i), {i < 6 ? 0 : 7, 2010, 4}, held[i], 1});
    in.known_signatures["k" + std::to_string(i)] = i < 6 ? Signature{1, 2, 3} : Signature{2, 3, 4};
  }
  // The checker takes the stored signatures from the first input it sees.
  ReleaseOutput out = ComputeRelease(schema, in);
  *violations = checker.Check(in, out);
  ReleaseInput next;
  next.params = in.params;
  next.params.shared_signatures = shared;
  next.release_id = 2;
  testing::CarryState(in, out, &next);
  next.tuples = in.tuples;
  for (uint32_t i = 0; i < 3; ++i) next.tuples.push_back(Tuple{"n" + std::to_string(i), {3, 2012, 4}, 2 + i, 1});
  out = ComputeRelease(schema, next);
  for (const std::string& v : checker.Check(next, out)) violations->push_back(v);
  return out;
}

TEST(SharedSignatureTest, NewVehiclesJoinTheSignatureMostVehiclesHold) {
  std::vector<std::string> violations;
  const ReleaseOutput out = JoinAfterHeldSignatures(1, &violations);
  EXPECT_TRUE(violations.empty()) << ::testing::PrintToString(violations);
  // Values 2 and 3 join {1,2,3}; value 4 is in no shared signature and
  // cannot form a group of 3 alone.
  EXPECT_EQ(out.new_signatures.size(), 2u);
  EXPECT_EQ(NewSignatures(out), (std::set<Signature>{{1, 2, 3}}));
}

TEST(SharedSignatureTest, WithoutItTheNewVehiclesFormTheirOwnSignature) {
  std::vector<std::string> violations;
  const ReleaseOutput out = JoinAfterHeldSignatures(0, &violations);
  EXPECT_TRUE(violations.empty()) << ::testing::PrintToString(violations);
  EXPECT_EQ(NewSignatures(out), (std::set<Signature>{{2, 3, 4}}));
}

}  // namespace
}  // namespace vanon::engine
