// Thousands of small generated release sequences, each checked by the
// independent checker: vehicles join, leave and come back, sensitive values
// change, value distributions are skewed, m runs from 2 to 10.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "test_schema.h"
#include "vanon/engine/checker.h"
#include "vanon/engine/release.h"
#include "vanon/engine/value_window.h"

namespace vanon::engine {
namespace {

using testing::Rng;

struct Totals {
  uint64_t tuples = 0;
  uint64_t published = 0;
  uint64_t counterfeits = 0;
  uint64_t conflicts = 0;
  uint64_t unknown_published = 0;  // tuples with a QI unknown to the VIN table
  uint64_t history_slots = 0;      // signature values no member held when first published
  uint64_t shared_joins = 0;       // new vehicles given a signature another vehicle already held
  uint64_t sequences = 0;
};

// Skewed draw: value 0 takes `skew` percent, the rest is uniform.
SensitiveId Draw(Rng& rng, uint32_t values, uint32_t skew) {
  if (rng.Chance(skew)) return 100;
  return 100 + rng.Below(values);
}

void RunSequence(uint64_t seed, Model model, Totals* totals) {
  Rng rng(seed);
  const Schema schema = testing::TestSchema();
  const uint32_t m = 2 + rng.Below(9);
  const uint32_t values = m + rng.Below(8);
  const uint32_t skew = rng.Below(4) == 0 ? 30 + rng.Below(40) : 0;
  const uint32_t vehicles = 5 + rng.Below(60);
  const uint32_t releases = 2 + rng.Below(5);
  const uint32_t active_percent = 40 + rng.Below(60);
  const uint32_t change_percent = rng.Below(40);

  struct Vehicle {
    std::vector<int32_t> qi;
    SensitiveId value;
  };
  std::vector<Vehicle> fleet;
  for (uint32_t v = 0; v < vehicles; ++v) {
    fleet.push_back({{static_cast<int32_t>(rng.Below(8)), static_cast<int32_t>(2000 + rng.Below(30)),
                      static_cast<int32_t>(1 + rng.Below(9))},
                     Draw(rng, values, skew)});
    // A few VINs the decoding table does not know: some QIs unknown.
    for (int32_t& code : fleet.back().qi) {
      if (rng.Chance(3)) code = kUnknownQiCode;
    }
  }
  ReleaseChecker checker(schema);
  ReleaseInput in;
  in.params.model = model;
  in.params.m = m;
  in.params.k = 2 + rng.Below(5);
  in.params.l = rng.Below(3);
  in.params.max_delay = rng.Below(3);
  in.params.seed = seed;
  // Half the sequences allow counterfeit slots in new signatures.
  in.params.new_group_counterfeits = rng.Chance(50) ? rng.Below(m) : 0;
  // Half the m-invariant ones choose signatures from the vehicles' histories
  // (ValueWindow, advanced every release whether published or not).
  const bool history = model == Model::kMInvariance && rng.Chance(50);
  if (history) {
    in.params.history_slots = 1 + rng.Below(4);
    in.params.history_min_share = 0.05 * (1 + rng.Below(5));
    in.params.history_min_events = rng.Below(3) == 0 ? 0 : 1 + rng.Below(30);
  }
  // A third use shared signatures (own generator: the other draws stay as
  // they were).
  Rng shared_rng(seed * 7919 + 1);
  if (model == Model::kMInvariance && shared_rng.Chance(33)) {
    in.params.shared_signatures = 1 + shared_rng.Below(5);
    in.params.shared_signature_size = shared_rng.Chance(50) ? 0 : m + shared_rng.Below(3);
  }
  std::vector<ValueWindow> windows(vehicles);
  for (uint32_t r = 1; r <= releases; ++r) {
    in.release_id = 100 + r;
    in.tuples.clear();
    for (uint32_t v = 0; v < vehicles; ++v) {
      if (!rng.Chance(active_percent)) continue;
      if (rng.Chance(change_percent)) fleet[v].value = Draw(rng, values, skew);
      in.tuples.push_back(Tuple{"veh" + std::to_string(v), fleet[v].qi, fleet[v].value, 1 + rng.Below(20)});
      if (history) {
        // A few tracks of the value, sometimes one of another.
        std::vector<ValueCount> tracks{{fleet[v].value, 1 + rng.Below(4)}};
        if (rng.Chance(40)) tracks.push_back({Draw(rng, values, skew), 1});
        if (tracks.size() == 2 && tracks[1].value == tracks[0].value) tracks.pop_back();
        windows[v].Advance(r, tracks, WindowParams{});
      }
    }
    in.histories.clear();
    for (uint32_t v = 0; history && v < vehicles; ++v) {
      if (!windows[v].history().empty()) in.histories["veh" + std::to_string(v)] = windows[v].history();
    }
    const ReleaseOutput out = ComputeRelease(schema, in);
    const auto violations = checker.Check(in, out);
    ASSERT_TRUE(violations.empty()) << "seed " << seed << ": " << ::testing::PrintToString(violations);
    totals->tuples += out.metrics.tuples;
    totals->published += out.metrics.published;
    totals->counterfeits += out.metrics.counterfeits;
    totals->conflicts += out.metrics.suppressed_by_reason[0];
    for (const Group& g : out.groups) {
      bool fresh = false;
      for (TupleRef ref : g.members) fresh |= !in.known_signatures.count(ResolveTuple(in, ref).vehicle);
      if (fresh && g.members.size() + g.counterfeits.size() > std::max(m, static_cast<uint32_t>(g.members.size()))) {
        totals->history_slots += history;
      }
    }
    std::set<Signature> held;
    for (const auto& [key, sig] : in.known_signatures) held.insert(sig);
    for (const auto& [key, sig] : out.new_signatures) {
      totals->shared_joins += in.params.shared_signatures > 0 && held.count(sig) > 0;
    }
    for (const Group& g : out.groups) {
      for (TupleRef ref : g.members) {
        const std::vector<int32_t>& qi = ResolveTuple(in, ref).qi;
        totals->unknown_published += std::count(qi.begin(), qi.end(), kUnknownQiCode) > 0;
      }
    }
    ReleaseInput next;
    next.params = in.params;
    testing::CarryState(in, out, &next);
    in = std::move(next);
  }
  ++totals->sequences;
}

TEST(RandomizedReleaseTest, MInvariantSequencesPassTheChecker) {
  Totals totals;
  for (uint64_t seed = 1; seed <= 2500; ++seed) {
    RunSequence(seed, Model::kMInvariance, &totals);
    if (HasFatalFailure()) return;
  }
  EXPECT_EQ(totals.sequences, 2500u);
  // The generator must exercise every path, and the engine must publish most
  // tuples rather than pass the checker by suppressing everything.
  EXPECT_GT(totals.counterfeits, 0u);
  EXPECT_GT(totals.conflicts, 0u);
  EXPECT_GT(totals.unknown_published, 0u);
  EXPECT_GT(totals.history_slots, 0u);
  EXPECT_GT(totals.shared_joins, 0u);
  EXPECT_GT(static_cast<double>(totals.published), 0.6 * static_cast<double>(totals.tuples));
}

TEST(RandomizedReleaseTest, KAnonymousSequencesPassTheChecker) {
  Totals totals;
  for (uint64_t seed = 10001; seed <= 10600; ++seed) {
    RunSequence(seed, Model::kKAnonymity, &totals);
    if (HasFatalFailure()) return;
  }
  EXPECT_EQ(totals.counterfeits, 0u);
  EXPECT_GT(static_cast<double>(totals.published), 0.8 * static_cast<double>(totals.tuples));
}

}  // namespace
}  // namespace vanon::engine
