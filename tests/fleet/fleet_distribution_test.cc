// The decoded attributes of a generated fleet follow the configured mix.
#include "vanon/fleet/fleet_distribution.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "test_util.h"
#include "vanon/fleet/fleet_generator.h"
#include "vanon/vehicle/vin.h"
#include "vanon/vehicle/vin_decoder.h"

namespace vanon::fleet {
namespace {

using Combo = std::tuple<std::string, std::string, std::string>;  // engine, body, seats

const VinDecoder& Table() {
  static const VinDecoder table = VinDecoder::Load(test::SourcePath("config/vehicle/vin-table.yaml"));
  return table;
}

// Pearson chi-square of observed counts against expected shares.
double ChiSquare(const std::map<Combo, uint64_t>& observed, const std::map<Combo, double>& share, uint64_t total) {
  double chi2 = 0;
  for (const auto& [combo, p] : share) {
    const double expected = p * static_cast<double>(total);
    const auto it = observed.find(combo);
    const double seen = it == observed.end() ? 0.0 : static_cast<double>(it->second);
    chi2 += (seen - expected) * (seen - expected) / expected;
  }
  return chi2;
}

TEST(FleetDistributionTest, DefaultFollowsSeed000Table45PlusRareModels) {
  // Seed 000 Table 4.5 vehicle counts (of 15) make up 96%; rare models 4%.
  std::map<Combo, double> share = {
      {{"EV", "Sedan", "2"}, 4},       {{"EV", "SUV", "4"}, 1},         {{"EV", "SUV", "5"}, 2},
      {{"EV", "SUV", "7"}, 1},         {{"Gas", "Sedan", "2"}, 2},      {{"Gas", "Long Sedan", "2"}, 2},
      {{"Gas", "Long Sedan", "4"}, 1}, {{"Gas", "Long Sedan", "5"}, 1}, {{"Hybrid", "Long Sedan", "5"}, 1}};
  for (auto& [combo, p] : share) p = p / 15.0 * 0.96;
  share[{"Hydrogen", "Sedan", "5"}] = 0.01;
  share[{"Diesel", "Van", "7"}] = 0.01;
  share[{"Gas", "Van", "7"}] = 0.0075;
  share[{"Hybrid", "SUV", "7"}] = 0.0075;
  share[{"Diesel", "Estate", "5"}] = 0.005;

  FleetOptions options;
  options.vehicles = 100000;
  options.seed = 7;
  FleetGenerator fleet(options, Table());
  ASSERT_EQ(fleet.Vehicles().size(), 100000u);

  std::map<Combo, uint64_t> observed;
  std::map<std::string, uint64_t> years;
  uint64_t known = 0, unknown = 0;
  for (const FleetVehicle& v : fleet.Vehicles()) {
    ASSERT_TRUE(base::IsValidVin(v.vin)) << v.vin;
    ASSERT_TRUE(HasValidCheckDigit(v.vin)) << v.vin;
    // Ground truth must be what the table says, independently decoded.
    const DecodedVehicle d = Table().Decode(v.vin);
    ASSERT_EQ(d.known, v.decoded.known) << v.vin;
    ASSERT_EQ(d.attributes, v.decoded.attributes) << v.vin;
    if (!d.known) {
      ++unknown;
      EXPECT_EQ(Table().FindManufacturer(v.vin.substr(0, 3)), nullptr) << v.vin;
      continue;
    }
    ++known;
    const Combo combo{d.attributes[1].second, d.attributes[2].second, d.attributes[3].second};
    ASSERT_EQ(share.count(combo), 1u) << v.vin << " decodes to an unconfigured combination";
    ++observed[combo];
    ++years[d.attributes[4].second];
  }
  // 14 cells, 13 degrees of freedom: 34.53 is the 0.999 quantile.
  EXPECT_LT(ChiSquare(observed, share, known), 34.53);
  // About 0.5% deliberate unknowns: 500 expected, sd ~22.
  EXPECT_GT(unknown, 390u);
  EXPECT_LT(unknown, 610u);
  // Model years 2014..2025, uniform: 12 values, ~8250 each (sd ~87).
  ASSERT_EQ(years.size(), 12u);
  EXPECT_EQ(years.begin()->first, "2014");
  EXPECT_EQ(years.rbegin()->first, "2025");
  for (const auto& [year, n] : years) {
    EXPECT_NEAR(static_cast<double>(n), known / 12.0, 450) << year;
  }
}

TEST(FleetDistributionTest, CustomFileIsHonoured) {
  const std::string path = test::WriteTempFile("dist.yaml", R"(
model_years: {from: 2020, to: 2020}
unknown: {fraction: 0}
models:
  - {manufacturer: Toyota, engine: Hydrogen, body: Sedan, seats: 5, weight: 3}
  - {engine: Diesel, body: Van, seats: 7, weight: 1}
)");
  FleetOptions options;
  options.vehicles = 20000;
  options.distribution = path;
  FleetGenerator fleet(options, Table());
  uint64_t mirai = 0, vans = 0;
  for (const FleetVehicle& v : fleet.Vehicles()) {
    ASSERT_TRUE(v.decoded.known) << v.vin;
    const auto& a = v.decoded.attributes;
    EXPECT_EQ(a[4].second, "2020");
    if (a[1].second == "Hydrogen") {
      EXPECT_EQ(a[0].second, "Toyota");
      ++mirai;
    } else {
      EXPECT_EQ(a[1].second, "Diesel");
      EXPECT_EQ(a[2].second, "Van");
      ++vans;
    }
  }
  // 15000 expected, sd ~61.
  EXPECT_NEAR(static_cast<double>(mirai), 15000, 300);
  EXPECT_EQ(mirai + vans, 20000u);
}

TEST(FleetDistributionTest, ErrorsNameFileAndLine) {
  const std::string no_model = test::WriteTempFile("dist.yaml",
                                                   "models:\n"
                                                   "  - {engine: EV, body: Sedan, seats: 2, weight: 1}\n"
                                                   "  - {engine: Steam, body: Sedan, seats: 2, weight: 1}\n");
  FleetOptions options;
  options.distribution = no_model;
  std::string error = test::ErrorOf([&] { FleetGenerator(options, Table()); });
  EXPECT_EQ(error.rfind(no_model + ":3: no model in the VIN table has engine=Steam", 0), 0u) << error;

  const std::string bad_weight =
      test::WriteTempFile("weight.yaml", "models:\n  - {engine: EV, body: Sedan, seats: 2, weight: -1}\n");
  error = test::ErrorOf([&] { FleetDistribution::Load(bad_weight); });
  EXPECT_EQ(error.rfind(bad_weight + ":2: 'weight' must be a positive number", 0), 0u) << error;

  const std::string known_wmi = test::WriteTempFile("wmi.yaml",
                                                    "unknown: {fraction: 0.1, wmis: [WBA]}\nmodels:\n"
                                                    "  - {engine: EV, body: Sedan, seats: 2, weight: 1}\n");
  options.distribution = known_wmi;
  error = test::ErrorOf([&] { FleetGenerator(options, Table()); });
  EXPECT_NE(error.find("unknown wmi WBA is in the VIN table"), std::string::npos) << error;
}

TEST(FleetDistributionTest, RejectsBadOptions) {
  FleetOptions options;
  options.vehicles = 0;
  EXPECT_THROW(FleetGenerator(options, Table()), std::invalid_argument);
  options = FleetOptions();
  options.invalid_fraction = 1.5;
  EXPECT_THROW(FleetGenerator(options, Table()), std::invalid_argument);
  options = FleetOptions();
  options.churn = 1.0;
  EXPECT_THROW(FleetGenerator(options, Table()), std::invalid_argument);
  options = FleetOptions();
  options.events_per_second = 0;
  EXPECT_THROW(FleetGenerator(options, Table()), std::invalid_argument);
}

}  // namespace
}  // namespace vanon::fleet

namespace vanon::fleet {
namespace {

TEST(FleetDistributionTest, Position7TablesGetTheRightCycle) {
  const VinDecoder table = VinDecoder::Parse(R"(
model_year: {rule: position7}
manufacturers:
  - wmi: 1FA
    name: Ford
    models:
      - {vds: "P8***", engine: Gas, body: Sedan, seats: 4}
)",
                                             "inline");
  const std::string dist = test::WriteTempFile("dist.yaml",
                                               "model_years: {from: 2005, to: 2014}\n"
                                               "unknown: {fraction: 0}\n"
                                               "models:\n"
                                               "  - {engine: Gas, body: Sedan, seats: 4, weight: 1}\n");
  FleetOptions options;
  options.vehicles = 2000;
  options.distribution = dist;
  FleetGenerator fleet(options, table);
  std::set<std::string> years;
  for (const FleetVehicle& v : fleet.Vehicles()) {
    ASSERT_TRUE(v.decoded.known) << v.vin;
    const int year = std::stoi(v.decoded.attributes[4].second);
    ASSERT_GE(year, 2005) << v.vin;
    ASSERT_LE(year, 2014) << v.vin;
    // Position 7: digit before 2010, letter from 2010 on.
    EXPECT_EQ(std::isdigit(static_cast<unsigned char>(v.vin[6])) != 0, year < 2010) << v.vin;
    years.insert(v.decoded.attributes[4].second);
  }
  EXPECT_EQ(years.size(), 10u);
}

TEST(FleetDistributionTest, YearsOutsideTheTableWindowAreRefused) {
  // The shipped table decodes 2001..2030; 1995 would come back as 2025.
  const std::string dist = test::WriteTempFile("dist.yaml",
                                               "model_years: {from: 1995, to: 1996}\n"
                                               "models:\n"
                                               "  - {engine: EV, body: Sedan, seats: 2, weight: 1}\n");
  FleetOptions options;
  options.distribution = dist;
  const std::string error = test::ErrorOf([&] { FleetGenerator(options, Table()); });
  EXPECT_NE(error.find("cannot encode"), std::string::npos) << error;
}

}  // namespace
}  // namespace vanon::fleet

namespace vanon::fleet {
namespace {

TEST(FleetDistributionTest, ExactSharesReproduceTable45) {
  FleetOptions options;
  options.vehicles = 15;
  options.exact_shares = true;
  options.distribution = test::SourcePath("config/vehicle/fleet-seed000.yaml");
  // Seed 000 Table 4.5, vehicle counts.
  const std::map<Combo, uint64_t> table45 = {
      {{"EV", "Sedan", "2"}, 4},       {{"EV", "SUV", "4"}, 1},         {{"EV", "SUV", "5"}, 2},
      {{"EV", "SUV", "7"}, 1},         {{"Gas", "Sedan", "2"}, 2},      {{"Gas", "Long Sedan", "2"}, 2},
      {{"Gas", "Long Sedan", "4"}, 1}, {{"Gas", "Long Sedan", "5"}, 1}, {{"Hybrid", "Long Sedan", "5"}, 1}};
  for (uint64_t seed : {1, 2, 3}) {
    options.seed = seed;
    FleetGenerator fleet(options, Table());
    std::map<Combo, uint64_t> observed;
    for (const FleetVehicle& v : fleet.Vehicles()) {
      const auto& a = v.decoded.attributes;
      ++observed[{a[1].second, a[2].second, a[3].second}];
    }
    EXPECT_EQ(observed, table45) << "seed " << seed;
  }
}

TEST(FleetDistributionTest, ExactSharesScaleWithLargestRemainder) {
  FleetOptions options;
  options.vehicles = 1000;
  options.exact_shares = true;  // built-in default: 0.5% unknown, then the weights
  FleetGenerator fleet(options, Table());
  uint64_t unknown = 0, ev_sedan_2 = 0;
  for (const FleetVehicle& v : fleet.Vehicles()) {
    const auto& a = v.decoded.attributes;
    if (!v.decoded.known) ++unknown;
    if (a[1].second == "EV" && a[2].second == "Sedan" && a[3].second == "2") ++ev_sedan_2;
  }
  EXPECT_EQ(unknown, 5u);
  // 995 known x 25.6% = 254.72: 254 or 255 after the remainder step.
  EXPECT_GE(ev_sedan_2, 254u);
  EXPECT_LE(ev_sedan_2, 255u);
}

}  // namespace
}  // namespace vanon::fleet
