#include "vanon/release/tuple_builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "release_fixture.h"
#include "vanon/release/schema_from_config.h"

namespace vanon::release {
namespace {

using release_test::Event;
using release_test::Key;

class TupleBuilderTest : public ::testing::Test {
 protected:
  TupleBuilderTest()
      : config_(release_test::TestConfig(release_test::WriteEngineHierarchy())),
        schema_(SchemaFromConfig(config_.quasi_identifiers, config_.sensitive)) {}

  BuiltTuples Build(const std::vector<ingest::BufferedEvent>& events) {
    TupleBuilder b(config_.quasi_identifiers, config_.sensitive, schema_, 0, &dict_);
    return b.Build(events);
  }
  std::string Sensitive(const engine::Tuple& t) { return dict_.Value(t.sensitive); }

  config::Config config_;
  engine::Schema schema_;
  SensitiveDictionary dict_;
};

TEST_F(TupleBuilderTest, SchemaFromConfigLoadsHierarchyAndIntegerBins) {
  ASSERT_EQ(schema_.size(), 2u);
  EXPECT_TRUE(schema_.attribute(0).IsCategorical());
  EXPECT_EQ(schema_.attribute(0).hierarchy->LeafCount(), 4);
  EXPECT_EQ(schema_.attribute(1).numeric.min, 2);
  EXPECT_EQ(schema_.attribute(1).numeric.max, 9);
  EXPECT_EQ(schema_.attribute(1).numeric.bin_width, 2);

  config::Config c = config_;
  c.quasi_identifiers[1].range_min = 1.5;
  c.quasi_identifiers[1].range_max = 7.2;
  c.quasi_identifiers[1].bin_width = 0.4;
  engine::Schema s = SchemaFromConfig(c.quasi_identifiers, c.sensitive);
  EXPECT_EQ(s.attribute(1).numeric.min, 1);
  EXPECT_EQ(s.attribute(1).numeric.max, 8);
  EXPECT_EQ(s.attribute(1).numeric.bin_width, 1);
  c.quasi_identifiers[1].split = config::NumericSplit::kOnDemand;
  EXPECT_EQ(SchemaFromConfig(c.quasi_identifiers, c.sensitive).attribute(1).numeric.bin_width, 0);
  c.quasi_identifiers[1].range_min = -3e9;
  EXPECT_THROW(SchemaFromConfig(c.quasi_identifiers, c.sensitive), std::invalid_argument);
  c.quasi_identifiers[0].hierarchy = "/nonexistent/h.csv";
  EXPECT_THROW(SchemaFromConfig(c.quasi_identifiers, c.sensitive), std::runtime_error);
}

TEST_F(TupleBuilderTest, OneTuplePerVehicleWithItsEventsInTimeOrder) {
  std::vector<ingest::BufferedEvent> events = {Event(1, 300, "BEV", "5", "a"), Event(2, 100, "Diesel", "4", "b"),
                                               Event(1, 100, "BEV", "5", "a"), Event(1, 200, "BEV", "5", "a")};
  BuiltTuples b = Build(events);
  ASSERT_EQ(b.tuples.size(), 2u);
  const ingest::HmacToken one = Key(1);
  for (size_t t = 0; t < 2; ++t) {
    const bool is_one = b.tuples[t].vehicle == std::string(one.begin(), one.end());
    if (is_one) {
      EXPECT_EQ(b.events[t], (std::vector<uint32_t>{2, 3, 0}));
      EXPECT_EQ(b.tuples[t].events, 3u);
      EXPECT_EQ(b.tuples[t].qi, (std::vector<int32_t>{*schema_.Encode(0, "BEV"), 5}));
    } else {
      EXPECT_EQ(b.events[t], (std::vector<uint32_t>{1}));
    }
    EXPECT_EQ(b.problems[t], TupleProblem::kNone);
  }
  EXPECT_LT(b.tuples[0].vehicle, b.tuples[1].vehicle);
}

// Numeric values are never clamped or rounded (that published 4.6 as "5"
// and 42 as "[8,9]"): one without an exact code takes the root.
TEST_F(TupleBuilderTest, QiFromLatestEventNumericNeitherClampedNorRounded) {
  BuiltTuples b = Build({Event(1, 200, "PHEV", "4", "a"), Event(1, 100, "BEV", "5", "a")});
  ASSERT_EQ(b.tuples.size(), 1u);
  EXPECT_EQ(b.tuples[0].qi, (std::vector<int32_t>{*schema_.Encode(0, "PHEV"), 4}));
  for (const char* seats : {"4.6", "42", "-1e300"}) {
    BuiltTuples r = Build({Event(1, 1, "BEV", seats, "a")});
    EXPECT_EQ(r.tuples[0].qi[1], engine::kUnknownQiCode) << seats;
    EXPECT_EQ(r.problems[0], TupleProblem::kNone) << seats;
    EXPECT_EQ(r.qi_at_root, 1u) << seats;
  }
}

// "*" is what ingestion stores for a QI the VIN table does not know: the
// vehicle is published under the root (privacy-model.md section 1), and so is
// a numeric value that is not a number. A categorical value outside the
// hierarchy is a different matter: the tuple is ineligible.
TEST_F(TupleBuilderTest, UnknownQiIsRootCodedAndOutOfDomainIsIneligible) {
  BuiltTuples unknown_engine = Build({Event(1, 1, "*", "5", "a")});
  EXPECT_EQ(unknown_engine.problems[0], TupleProblem::kNone);
  EXPECT_EQ(unknown_engine.tuples[0].qi, (std::vector<int32_t>{engine::kUnknownQiCode, 5}));
  BuiltTuples unknown_seats = Build({Event(1, 1, "BEV", "*", "a")});
  EXPECT_EQ(unknown_seats.problems[0], TupleProblem::kNone);
  EXPECT_EQ(unknown_seats.tuples[0].qi[1], engine::kUnknownQiCode);

  BuiltTuples hydrogen = Build({Event(1, 1, "Hydrogen", "5", "a")});
  EXPECT_EQ(hydrogen.problems[0], TupleProblem::kUnknownQi);
  EXPECT_EQ(hydrogen.tuples[0].qi[0], kIneligibleCode);
  for (const char* seats : {"five", "nan", "", "NO DATA"}) {
    BuiltTuples b = Build({Event(1, 1, "BEV", seats, "a")});
    EXPECT_EQ(b.problems[0], TupleProblem::kNone) << seats;
    EXPECT_EQ(b.tuples[0].qi[1], engine::kUnknownQiCode) << seats;
    EXPECT_EQ(b.qi_at_root, 1u) << seats;
  }
  EXPECT_EQ(unknown_seats.qi_at_root, 0u);  // "*" is counted at ingestion, as an unknown VIN
}

// Vehicles of one model share one QI list (ingestion hands them the same
// copy). Each tuple still gets its own vehicle's codes, and every tuple
// whose value took the root is counted, shared list or not.
TEST_F(TupleBuilderTest, VehiclesSharingAQiListEachGetTheirCodesAndRootCounts) {
  ingest::BufferedEvent bev = Event(1, 1, "BEV", "5", "a");
  ingest::BufferedEvent odd_seats = Event(3, 1, "Diesel", "4.6", "c");
  std::vector<ingest::BufferedEvent> events = {bev, Event(2, 1, "PHEV", "4", "b"), odd_seats};
  for (uint32_t v = 10; v < 13; ++v) {
    ingest::BufferedEvent e = Event(v, 2, "", "", "d");
    e.qi_values = (v % 2 == 0 ? bev : odd_seats).qi_values;  // the same copy, not an equal one
    ASSERT_TRUE(e.qi_values.SharesWith(v % 2 == 0 ? bev.qi_values : odd_seats.qi_values));
    events.push_back(e);
  }
  events.push_back(Event(13, 1, "BEV", "5", "e"));  // equal to bev's, a copy of its own
  const BuiltTuples b = Build(events);
  ASSERT_EQ(b.tuples.size(), 7u);
  const std::vector<int32_t> bev_codes = {*schema_.Encode(0, "BEV"), 5};
  const std::vector<int32_t> phev_codes = {*schema_.Encode(0, "PHEV"), 4};
  const std::vector<int32_t> odd_codes = {*schema_.Encode(0, "Diesel"), engine::kUnknownQiCode};
  std::map<ingest::HmacToken, std::vector<int32_t>> want = {
      {Key(1), bev_codes},  {Key(2), phev_codes}, {Key(3), odd_codes}, {Key(10), bev_codes},
      {Key(11), odd_codes}, {Key(12), bev_codes}, {Key(13), bev_codes}};
  for (size_t t = 0; t < b.tuples.size(); ++t) {
    const std::string& v = b.tuples[t].vehicle;
    ingest::HmacToken key{};
    ASSERT_EQ(v.size(), key.size());
    std::copy(v.begin(), v.end(), key.begin());
    EXPECT_EQ(b.tuples[t].qi, want.at(key)) << t;
  }
  EXPECT_EQ(b.qi_at_root, 2u);  // vehicles 3 and 11
}

TEST_F(TupleBuilderTest, Aggregators) {
  // times 10..50: x, y, (none), y, x -> first x, last x, mode: x and y tie
  // at 2, x occurred first.
  std::vector<ingest::BufferedEvent> ev = {Event(1, 50, "BEV", "5", "x"), Event(1, 10, "BEV", "5", "x"),
                                           Event(1, 40, "BEV", "5", "y"), Event(1, 20, "BEV", "5", "y"),
                                           Event(1, 30, "BEV", "5", std::nullopt)};
  EXPECT_EQ(Sensitive(Build(ev).tuples[0]), "x");
  ev[1].extras[0] = "z";  // times: z y - y x -> mode y (2)
  EXPECT_EQ(Sensitive(Build(ev).tuples[0]), "y");
  config_.sensitive->aggregator = config::SensitiveAggregator::kFirst;
  EXPECT_EQ(Sensitive(Build(ev).tuples[0]), "z");
  config_.sensitive->aggregator = config::SensitiveAggregator::kLast;
  EXPECT_EQ(Sensitive(Build(ev).tuples[0]), "x");
  ev[0].extras[0] = std::nullopt;  // last carrying the field: y at 40
  EXPECT_EQ(Sensitive(Build(ev).tuples[0]), "y");
}

TEST_F(TupleBuilderTest, ModeTieGoesToEarliestFirstOccurrenceWhateverTheInputOrder) {
  std::vector<ingest::BufferedEvent> ev = {Event(1, 30, "BEV", "5", "b"), Event(1, 20, "BEV", "5", "a"),
                                           Event(1, 10, "BEV", "5", "b"), Event(1, 40, "BEV", "5", "a")};
  EXPECT_EQ(Sensitive(Build(ev).tuples[0]), "b");
  std::reverse(ev.begin(), ev.end());
  EXPECT_EQ(Sensitive(Build(ev).tuples[0]), "b");
}

TEST_F(TupleBuilderTest, MissingSensitiveUsesMissingValueOrIsIneligible) {
  std::vector<ingest::BufferedEvent> ev = {Event(1, 1, "BEV", "5", std::nullopt)};
  BuiltTuples b = Build(ev);
  EXPECT_EQ(b.problems[0], TupleProblem::kMissingSensitive);
  EXPECT_EQ(b.tuples[0].qi[0], kIneligibleCode);
  config_.sensitive->missing_value = "(none)";
  b = Build(ev);
  EXPECT_EQ(b.problems[0], TupleProblem::kNone);
  EXPECT_EQ(Sensitive(b.tuples[0]), "(none)");
}

TEST(SensitiveDictionaryTest, IdsStableAcrossEncodeDecodeAndHierarchyLeavesFirst) {
  SensitiveDictionary d;
  EXPECT_EQ(d.Intern("b"), 0u);
  EXPECT_EQ(d.Intern("a"), 1u);
  EXPECT_EQ(d.Intern("b"), 0u);
  SensitiveDictionary e;
  ASSERT_TRUE(e.DecodeState(d.EncodeState()));
  EXPECT_EQ(e.Find("a"), 1u);
  EXPECT_EQ(e.Intern("c"), 2u);
  EXPECT_FALSE(e.DecodeState("x"));
  std::string dup = d.EncodeState();
  dup.replace(dup.size() - 1, 1, "b");  // "b","b"
  EXPECT_FALSE(e.DecodeState(dup));
  EXPECT_EQ(e.size(), 3u);

  const engine::CategoricalHierarchy h = engine::CategoricalHierarchy::LoadArxCsv(release_test::WriteEngineHierarchy());
  SensitiveDictionary f(&h);
  EXPECT_EQ(f.Find("BEV"), static_cast<engine::SensitiveId>(*h.LeafId("BEV")));
  EXPECT_EQ(f.Intern("Hydrogen"), 4u);
}

}  // namespace
}  // namespace vanon::release
