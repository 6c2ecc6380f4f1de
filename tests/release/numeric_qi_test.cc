// Numeric QIs are published truthfully: decimals are kept to the configured
// precision, labels print the exact decimal value, and a value with no exact
// code takes the root instead of being rounded into a neighbour's interval.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "release_fixture.h"
#include "vanon/engine/release.h"
#include "vanon/release/schema_from_config.h"
#include "vanon/release/tuple_builder.h"

namespace vanon::release {
namespace {

using release_test::Event;
using release_test::Key;

constexpr int kNanoDigits = 9;

// A decimal string ("-1.25", "3", "0.5") as an integer count of 1e-9, or
// nullopt for anything else. Exact: the test never compares doubles.
std::optional<int64_t> Nano(std::string_view s) {
  bool negative = false;
  if (!s.empty() && s[0] == '-') {
    negative = true;
    s.remove_prefix(1);
  }
  const size_t dot = s.find('.');
  std::string_view whole = s.substr(0, dot);
  std::string_view frac = dot == std::string_view::npos ? "" : s.substr(dot + 1);
  if (whole.empty() || frac.size() > kNanoDigits || (dot != std::string_view::npos && frac.empty())) {
    return std::nullopt;
  }
  int64_t v = 0;
  for (char c : whole) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  for (int i = 0; i < kNanoDigits; ++i) {
    const size_t at = static_cast<size_t>(i);
    const char c = at < frac.size() ? frac[at] : '0';
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return negative ? -v : v;
}

// "[lo,hi]" or "v" -> {lo, hi} in nano units.
std::optional<std::pair<int64_t, int64_t>> LabelBounds(const std::string& label) {
  if (label.size() > 2 && label.front() == '[' && label.back() == ']') {
    const size_t comma = label.find(',');
    if (comma == std::string::npos) return std::nullopt;
    auto lo = Nano(std::string_view(label).substr(1, comma - 1));
    auto hi = Nano(std::string_view(label).substr(comma + 1, label.size() - comma - 2));
    if (!lo || !hi) return std::nullopt;
    return std::make_pair(*lo, *hi);
  }
  auto v = Nano(label);
  if (!v) return std::nullopt;
  return std::make_pair(*v, *v);
}

// mantissa / 10^decimals as a decimal string, built from digits.
std::string Decimal(int64_t mantissa, int decimals) {
  const bool negative = mantissa < 0;
  std::string digits = std::to_string(negative ? -mantissa : mantissa);
  if (decimals > 0) {
    if (digits.size() <= static_cast<size_t>(decimals)) {
      digits.insert(0, static_cast<size_t>(decimals) + 1 - digits.size(), '0');
    }
    digits.insert(digits.size() - static_cast<size_t>(decimals), 1, '.');
  }
  return negative ? "-" + digits : digits;
}

engine::Schema OneNumericSchema(int32_t lo, int32_t hi, int32_t decimals) {
  engine::QiAttribute a;
  a.name = "x";
  a.numeric = {lo, hi, 0, decimals};
  return engine::Schema({a});
}

TEST(NumericQiLabelTest, PrintsTheExactDecimalValue) {
  EXPECT_EQ(OneNumericSchema(0, 100, 1).Label(0, engine::Cover{15, 15}), "1.5");
  EXPECT_EQ(OneNumericSchema(0, 100, 1).Label(0, engine::Cover{20, 37}), "[2,3.7]");
  EXPECT_EQ(OneNumericSchema(0, 100, 1).Label(0, engine::Cover{11, 11}), "1.1");  // not 1.1000000000000001
  EXPECT_EQ(OneNumericSchema(-500, 500, 2).Label(0, engine::Cover{-5, 5}), "[-0.05,0.05]");
  EXPECT_EQ(OneNumericSchema(-500, 500, 2).Label(0, engine::Cover{-120, -120}), "-1.2");
  EXPECT_EQ(OneNumericSchema(-500, 500, 2).Label(0, engine::Cover{0, 0}), "0");
  EXPECT_EQ(OneNumericSchema(INT32_MIN + 2, INT32_MAX, 6).Label(0, engine::Cover{INT32_MIN + 2, INT32_MAX}),
            "[-2147.483646,2147.483647]");
  EXPECT_EQ(OneNumericSchema(1990, 2030, 0).Label(0, engine::Cover{1990, 1999}), "[1990,1999]");
}

class NumericQiTest : public ::testing::Test {
 protected:
  NumericQiTest() : config_(release_test::TestConfig(release_test::WriteEngineHierarchy())) {
    config::QuasiIdentifier& litres = config_.quasi_identifiers[1];
    litres.name = "displacement";
    litres.range_min = 0.8;
    litres.range_max = 8.4;
    litres.precision = 1;
    litres.split = config::NumericSplit::kOnDemand;
  }

  // Codes of the numeric QI of one vehicle per raw value, and the count of
  // values put under the root.
  std::pair<std::vector<int32_t>, uint64_t> Codes(const std::vector<std::string>& raw) {
    const engine::Schema schema = SchemaFromConfig(config_.quasi_identifiers, config_.sensitive);
    std::vector<ingest::BufferedEvent> events;
    for (size_t i = 0; i < raw.size(); ++i) {
      events.push_back(Event(static_cast<uint32_t>(i), 1, "BEV", raw[i], "a"));
    }
    SensitiveDictionary dict;
    BuiltTuples b = TupleBuilder(config_.quasi_identifiers, config_.sensitive, schema, 0, &dict).Build(events);
    std::vector<int32_t> codes(raw.size());
    for (const engine::Tuple& t : b.tuples) {
      for (size_t i = 0; i < raw.size(); ++i) {
        const ingest::HmacToken k = Key(static_cast<uint32_t>(i));
        if (t.vehicle == std::string(k.begin(), k.end())) codes[i] = t.qi[1];
      }
    }
    for (TupleProblem p : b.problems) EXPECT_EQ(p, TupleProblem::kNone);
    return {codes, b.qi_at_root};
  }

  config::Config config_;
};

TEST_F(NumericQiTest, DecimalsAreKeptNotRounded) {
  const engine::Schema schema = SchemaFromConfig(config_.quasi_identifiers, config_.sensitive);
  EXPECT_EQ(schema.attribute(1).numeric.min, 8);
  EXPECT_EQ(schema.attribute(1).numeric.max, 84);
  EXPECT_EQ(schema.attribute(1).numeric.decimals, 1);
  auto [codes, at_root] = Codes({"1.5", "1.8", "3.7", "2", "0.8", "8.4", "1.50"});
  EXPECT_EQ(codes, (std::vector<int32_t>{15, 18, 37, 20, 8, 84, 15}));
  EXPECT_EQ(at_root, 0u);
}

// "NO DATA" took the whole tuple out (ineligible) and 9.1 was clamped to 8.4;
// 1.55 at precision 1 has no exact code. None of them is guessed.
TEST_F(NumericQiTest, ValuesWithNoExactCodeTakeTheRootAndAreCounted) {
  auto [codes, at_root] = Codes({"NO DATA", "9.1", "0.7", "1.55", "nan", "", "1.5", "1.5000001", "1.1"});
  EXPECT_EQ(codes, (std::vector<int32_t>{engine::kUnknownQiCode, engine::kUnknownQiCode, engine::kUnknownQiCode,
                                         engine::kUnknownQiCode, engine::kUnknownQiCode, engine::kUnknownQiCode, 15,
                                         engine::kUnknownQiCode, 11}));
  EXPECT_EQ(at_root, 7u);
}

TEST_F(NumericQiTest, NegativeValuesAndBinsAtPrecision) {
  config::QuasiIdentifier& q = config_.quasi_identifiers[1];
  q.range_min = -40;
  q.range_max = 60;
  q.precision = 2;
  q.split = config::NumericSplit::kFixedBins;
  q.bin_width = 0.25;
  const engine::Schema schema = SchemaFromConfig(config_.quasi_identifiers, config_.sensitive);
  EXPECT_EQ(schema.attribute(1).numeric.bin_width, 25);
  auto [codes, at_root] = Codes({"-12.34", "-0.01", "59.99", "-40"});
  EXPECT_EQ(codes, (std::vector<int32_t>{-1234, -1, 5999, -4000}));
  EXPECT_EQ(at_root, 0u);
  EXPECT_EQ(schema.Label(1, schema.Generalize(1, -1234, -1234)), "[-12.5,-12.26]");
  EXPECT_EQ(schema.Label(1, schema.RootCover(1)), "[-40,60]");
}

// The property: for random registries, decimals included,
// every published group's numeric QI contains each member's true value, and
// a member whose value has no exact code is published under the root.
TEST_F(NumericQiTest, EveryPublishedGroupContainsItsMembersValues) {
  const std::vector<std::string> artists = {"a", "b", "c", "d", "e", "f"};
  size_t groups_checked = 0, members_checked = 0, at_root_seen = 0;
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    std::mt19937_64 rng(seed);
    auto uniform = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
    config::QuasiIdentifier& q = config_.quasi_identifiers[1];
    const int precision = static_cast<int>(uniform(0, 3));
    int64_t scale = 1;
    for (int i = 0; i < precision; ++i) scale *= 10;
    const int64_t min_m = uniform(-5000, 5000);  // range bounds, in units of 10^-precision
    const int64_t max_m = min_m + uniform(1, 20000);
    q.precision = precision;
    q.range_min = static_cast<double>(min_m) / static_cast<double>(scale);
    q.range_max = static_cast<double>(max_m) / static_cast<double>(scale);
    q.split = uniform(0, 1) ? config::NumericSplit::kOnDemand : config::NumericSplit::kFixedBins;
    q.bin_width = static_cast<double>(uniform(1, 500)) / static_cast<double>(scale);
    const engine::Schema schema = SchemaFromConfig(config_.quasi_identifiers, config_.sensitive);
    const std::string root = schema.Label(1, schema.RootCover(1));

    // Raw value per vehicle, and whether it has an exact code.
    const uint32_t vehicles = static_cast<uint32_t>(uniform(20, 150));
    std::vector<std::string> raw(vehicles);
    std::vector<bool> exact(vehicles);
    std::vector<ingest::BufferedEvent> events;
    for (uint32_t v = 0; v < vehicles; ++v) {
      const int64_t kind = uniform(0, 19);
      if (kind == 0) {
        raw[v] = "NO DATA";
      } else if (kind == 1) {  // outside the range, below or above
        raw[v] = Decimal(uniform(0, 1) ? min_m - uniform(1, 100) : max_m + uniform(1, 100), precision);
      } else if (kind == 2) {  // one or two decimals too many, last digit non-zero
        const int extra = static_cast<int>(uniform(1, 2));
        int64_t m = uniform(min_m, max_m - 1);
        for (int i = 0; i < extra; ++i) m = m * 10 + (i + 1 == extra ? uniform(1, 9) : uniform(0, 9));
        raw[v] = Decimal(m, precision + extra);
      } else {  // in range; sometimes written with fewer decimals or trailing zeros
        const int64_t m = uniform(min_m, max_m);
        raw[v] = Decimal(m, precision);
        if (kind == 3) raw[v] = Decimal(m * 10, precision + 1);
        exact[v] = true;
      }
      for (int e = 0; e < 2; ++e) {
        events.push_back(Event(v, 100 + e, "BEV", raw[v], artists[static_cast<size_t>(uniform(0, 5))]));
      }
    }

    SensitiveDictionary dict;
    BuiltTuples built = TupleBuilder(config_.quasi_identifiers, config_.sensitive, schema, 0, &dict).Build(events);
    uint64_t inexact = 0;
    for (bool e : exact) inexact += e ? 0 : 1;
    EXPECT_EQ(built.qi_at_root, inexact) << "seed " << seed;
    std::map<std::string, uint32_t> vehicle_of;
    for (uint32_t v = 0; v < vehicles; ++v) {
      const ingest::HmacToken k = Key(v);
      vehicle_of[std::string(k.begin(), k.end())] = v;
    }

    engine::ReleaseInput in;
    in.tuples = std::move(built.tuples);
    in.params.model = seed % 2 ? engine::Model::kMInvariance : engine::Model::kKAnonymity;
    in.params.m = 2;
    in.params.k = 3;
    in.params.seed = seed;
    const engine::ReleaseOutput out = ComputeRelease(schema, in);
    for (const engine::Group& g : out.groups) {
      const std::string label = schema.Label(1, g.qi[1]);
      const auto bounds = LabelBounds(label);
      ASSERT_TRUE(bounds) << "unparsable label " << label;
      ++groups_checked;
      for (engine::TupleRef ref : g.members) {
        const uint32_t v = vehicle_of.at(ResolveTuple(in, ref).vehicle);
        ++members_checked;
        if (!exact[v]) {
          ++at_root_seen;
          EXPECT_EQ(label, root) << "seed " << seed << ": value " << raw[v];
          continue;
        }
        const auto value = Nano(raw[v]);
        ASSERT_TRUE(value) << raw[v];
        EXPECT_TRUE(bounds->first <= *value && *value <= bounds->second)
            << "seed " << seed << ": value " << raw[v] << " published as " << label;
      }
    }
  }
  // The property is not vacuous: groups were formed, some with values at the root.
  EXPECT_GT(groups_checked, 300u);
  EXPECT_GT(members_checked, 2000u);
  EXPECT_GT(at_root_seen, 50u);
}

}  // namespace
}  // namespace vanon::release
