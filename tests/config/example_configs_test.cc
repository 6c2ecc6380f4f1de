// The shipped example configs must load as they are, with the VIN table and
// hierarchies they reference (written by the fleet area).

#include <string>

#include <gtest/gtest.h>

#include "vanon/config.h"
#include "vanon/config/dp_budget.h"

namespace vanon::config {
namespace {

const std::string kConfigDir = VANON_SOURCE_DIR "/config/";

TEST(ExampleConfigsTest, DemoLoads) {
  Config c = LoadConfig(kConfigDir + "demo.yaml");
  EXPECT_EQ(c.privacy.model, PrivacyModel::kMInvariance);
  EXPECT_EQ(c.privacy.m, 5);
  EXPECT_EQ(c.privacy.epoch.length_seconds, 10);
  EXPECT_EQ(c.vehicle.source, VehicleSource::kVinTable);
  EXPECT_EQ(c.vehicle.vin_table, kConfigDir + "vehicle/vin-table.yaml");
  std::vector<std::string> names;
  for (const QuasiIdentifier& qi : c.quasi_identifiers) names.push_back(qi.name);
  EXPECT_EQ(names, (std::vector<std::string>{"manufacturer", "engine", "body", "seats", "model_year"}));
  EXPECT_EQ(c.quasi_identifiers[2].hierarchy, kConfigDir + "hierarchies/body.csv");
}

TEST(ExampleConfigsTest, ProductionExampleLoads) {
  Config c = LoadConfig(kConfigDir + "vanon.yaml");
  EXPECT_EQ(c.state.dir, "/var/lib/vanon");
  EXPECT_EQ(c.http.host, "0.0.0.0");
  EXPECT_EQ(c.dp.kpis.size(), 1u);
}

// The shipped configs' budgets last their periods (the production
// example spent its budget in 100 minutes of 30 days), also with the 1 s
// epochs tests set on the demo.
TEST(ExampleConfigsTest, ShippedDpBudgetsLastTheirPeriods) {
  for (const char* name : {"vanon.yaml", "demo.yaml"}) {
    const DpBudgetPlan p = PlanDpBudget(LoadConfig(kConfigDir + name));
    EXPECT_TRUE(p.lasts_period) << name << ": " << p.epsilon_per_period;
  }
  const DpBudgetPlan fast = PlanDpBudget(LoadConfig(kConfigDir + "demo.yaml", {"privacy.epoch.length_seconds=1"}));
  EXPECT_TRUE(fast.lasts_period) << fast.epsilon_per_period;
  EXPECT_EQ(fast.releases_per_period, 86400);
  // The production example counts in 1-hour windows.
  const Config prod = LoadConfig(kConfigDir + "vanon.yaml");
  EXPECT_EQ(prod.dp.window_seconds, 3600);
  EXPECT_EQ(PlanDpBudget(prod).releases_per_period, 720);
}

TEST(ExampleConfigsTest, DemoTakesOverrides) {
  Config c = LoadConfig(kConfigDir + "demo.yaml", {"kafka.bootstrap=127.0.0.1:1234", "privacy.m=7"});
  EXPECT_EQ(c.kafka.bootstrap, "127.0.0.1:1234");
  EXPECT_EQ(c.privacy.m, 7);
  EXPECT_THROW(LoadConfig(kConfigDir + "demo.yaml", {"privacy.m=seven"}), ConfigError);
}

}  // namespace
}  // namespace vanon::config
