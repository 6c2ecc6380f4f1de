#include "dp_readout.h"

#include <gtest/gtest.h>

#include <cmath>

#include "vanon/dp/discrete_laplace.h"

namespace vanon::cli {
namespace {

TEST(DpReadoutTest, NoiseStdIsTheSamplersVariance) {
  for (auto [num, den, sensitivity] : {std::tuple{1, 1, 1}, {1, 5, 4}, {1, 50000, 4}, {3, 1, 6}}) {
    const auto noise = dp::DiscreteLaplace::ForQuery(
        sensitivity, dp::Rational{static_cast<uint64_t>(num), static_cast<uint64_t>(den)});
    ASSERT_TRUE(noise);
    const double epsilon = static_cast<double>(num) / den;
    EXPECT_NEAR(NoiseStd(epsilon, sensitivity) / std::sqrt(noise->Variance()), 1.0, 1e-9) << epsilon;
  }
}

TEST(DpReadoutTest, ACountRecordIsReadWithItsNoise) {
  std::optional<DpCountReadout> c =
      ParseDpCount(R"({"release":7,"query":"vehicles_by_engine","cell":{"engine":"EV"},"kind":"count","value":0,)"
                   R"("unclamped":-530381,"epsilon":2e-05,"sensitivity":4,"mechanism":"discrete_laplace",)"
                   R"("postprocessed":["clamp_nonnegative"],"partition":0})");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->cell, "engine=EV");
  EXPECT_EQ(c->noisy, -530381);
  ASSERT_TRUE(c->std);
  EXPECT_NEAR(*c->std, 282842.7, 0.1);  // about sqrt(2) x 4 / 2e-05
  const std::string text = Describe(*c);
  EXPECT_NE(text.find("vehicles_by_engine engine=EV: 0 (unclamped -530381"), std::string::npos) << text;
  EXPECT_NE(text.find("+- 282843 (noise std; epsilon 2e-05 per count, sensitivity 4)"), std::string::npos) << text;
}

TEST(DpReadoutTest, RunningTotalsAndRatiosGetNoSingleRecordStd) {
  std::optional<DpCountReadout> total =
      ParseDpCount(R"({"release":7,"query":"q","cell":{},"kind":"count","value":5,"epsilon":1,"sensitivity":4096,)"
                   R"("mechanism":"binary_tree_discrete_laplace","postprocessed":[]})");
  ASSERT_TRUE(total);
  EXPECT_FALSE(total->std);
  EXPECT_FALSE(ParseDpCount(R"({"release":7,"query":"k","cell":{},"kind":"ratio","value":0.5,"numerator":1,)"
                            R"("denominator":2,"epsilon":1,"sensitivity":4,"mechanism":"discrete_laplace",)"
                            R"("postprocessed":[]})"));
  EXPECT_THROW(ParseDpCount(R"({"kind":"count"})"), std::invalid_argument);
}

TEST(DpReadoutTest, ANoiseBudgetIsCalledNoiseAndTheSuggestedSettingsAreValidAndReadable) {
  const std::string demo = std::string(VANON_SOURCE_DIR) + "/config/demo.yaml";
  // The shipped demo spends enough to read its counts.
  const std::string shipped = DescribeDpBudgetForDemo(config::LoadConfig(demo), 500);
  EXPECT_NE(shipped.find("the counts carry the signal"), std::string::npos) << shipped;
  // A production-like budget (10 a day) over the demo's 10 s releases.
  const std::string now = DescribeDpBudgetForDemo(
      config::LoadConfig(demo, {"dp.epsilon_per_release=0.0001", "dp.budget.epsilon=10"}), 500);
  EXPECT_NE(now.find("the counts above are noise"), std::string::npos) << now;
  const std::string at = "vanon demo --set ";
  const size_t cmd = now.find(at);
  ASSERT_NE(cmd, std::string::npos) << now;
  // The suggested --set flags, as the demo would pass them on.
  std::vector<std::string> overrides;
  for (size_t i = now.find("--set ", cmd); i != std::string::npos && i < now.find('\n', cmd);
       i = now.find("--set ", i + 1)) {
    const size_t from = i + 6;
    overrides.push_back(now.substr(from, now.find_first_of(" \n", from) - from));
  }
  ASSERT_EQ(overrides.size(), 2u) << now;
  const config::Config readable = config::LoadConfig(demo, overrides);  // throws if the budget does not last
  const std::string then = DescribeDpBudgetForDemo(readable, 500);
  EXPECT_NE(then.find("the counts carry the signal"), std::string::npos) << then;
  EXPECT_NE(then.find("protects no one"), std::string::npos) << then;
  const size_t measurements = readable.dp.queries.size() + 2 * readable.dp.kpis.size();
  EXPECT_LT(NoiseStd(readable.dp.epsilon_per_release / static_cast<double>(measurements), 4), 10);
}

}  // namespace
}  // namespace vanon::cli
