#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "base_config.h"
#include "config_test_util.h"
#include "vanon/config.h"
#include "vanon/config/dp_budget.h"

namespace vanon::testing {
namespace {

class LoadConfigTest : public ::testing::Test {
 protected:
  LoadConfigTest() { WriteBaseStubs(dir_); }
  std::string WriteConfig(const std::string& text) { return dir_.Write("conf/../vanon.yaml", text); }
  std::string Abs(const std::string& rel) const { return (dir_.path() / rel).lexically_normal().string(); }
  ScratchDir dir_;
};

TEST_F(LoadConfigTest, BaseConfigLoads) {
  config::Config c = config::LoadConfig(WriteConfig(kBaseConfig));
  EXPECT_EQ(c.kafka.bootstrap, "127.0.0.1:9092");
  EXPECT_EQ(c.kafka.properties.at("security.protocol"), "PLAINTEXT");
  ASSERT_EQ(c.quasi_identifiers.size(), 3u);
  EXPECT_EQ(c.quasi_identifiers[0].name, "engine");
  EXPECT_EQ(c.quasi_identifiers[0].type, config::QiType::kCategorical);
  EXPECT_EQ(c.quasi_identifiers[1].type, config::QiType::kNumeric);
  EXPECT_EQ(c.quasi_identifiers[1].split, config::NumericSplit::kFixedBins);
  EXPECT_EQ(c.quasi_identifiers[1].bin_width, 2);
  EXPECT_EQ(c.quasi_identifiers[1].range_min, 1);
  EXPECT_EQ(c.quasi_identifiers[1].range_max, 9);
  EXPECT_EQ(c.quasi_identifiers[2].split, config::NumericSplit::kOnDemand);
  ASSERT_TRUE(c.sensitive.has_value());
  EXPECT_EQ(c.sensitive->field, "payload.artist");
  EXPECT_EQ(c.sensitive->aggregator, config::SensitiveAggregator::kMode);
  EXPECT_EQ(c.sensitive->missing_value, "Radio");
  ASSERT_EQ(c.payload.fields.size(), 3u);
  EXPECT_EQ(c.payload.fields[1].transform, config::PayloadTransform::kBin);
  EXPECT_EQ(c.payload.fields[1].width, 10);
  EXPECT_EQ(c.payload.fields[2].transform, config::PayloadTransform::kGpsGrid);
  EXPECT_EQ(c.payload.fields[2].cell_meters, 500);
  EXPECT_EQ(c.privacy.epoch.length_seconds, 10);
  ASSERT_EQ(c.dp.queries.size(), 2u);
  EXPECT_EQ(c.dp.queries[1].filter.at("event"), "touchscreen_used");
  EXPECT_EQ(c.dp.queries[0].dimensions, (std::vector<std::string>{"event", "qi:engine"}));
  ASSERT_EQ(c.dp.kpis.size(), 1u);
  EXPECT_EQ(c.dp.kpis[0].denominator, "events_by_engine");
  EXPECT_EQ(c.http.host, "127.0.0.1");
  EXPECT_EQ(c.http.port, 9464);
}

// The plan validate-config prints. 10 s epochs in 30 days are
// 259,200 releases; the tree horizon is 2^17 releases, so 2 counter starts.
TEST_F(LoadConfigTest, DpBudgetPlanOfTheBaseConfig) {
  config::Config c = config::LoadConfig(WriteConfig(kBaseConfig));
  const config::DpBudgetPlan p = PlanDpBudget(c);
  EXPECT_EQ(p.releases_per_period, 259200);
  EXPECT_EQ(p.tree_starts_per_period, 2);
  EXPECT_NEAR(p.epsilon_per_period, 259202 * 0.00003, 1e-9);
  EXPECT_TRUE(p.lasts_period);
  EXPECT_EQ(p.seconds_before_pause, 30 * 86400);
  EXPECT_EQ(config::DescribeDpBudget(c, p),
            "dp budget: 7.77606 of 10 epsilon per 30 days (259200 releases + 2 running-total starts, "
            "3e-05 each, 10 s epochs): lasts the period, publication never pauses");
  // Without running totals (every query has a time bucket) there are no starts.
  c.dp.queries.resize(1);
  c.dp.queries[0].dimensions = {"time_bucket"};
  EXPECT_EQ(config::PlanDpBudget(c).tree_starts_per_period, 0);
  // 0.1 per release: 100 charges, the first release takes 2.
  c.dp.queries.clear();
  c.dp.epsilon_per_release = 0.1;
  const config::DpBudgetPlan short_plan = PlanDpBudget(c);
  EXPECT_FALSE(short_plan.lasts_period);
  EXPECT_EQ(short_plan.releases_before_pause, 100);
  EXPECT_EQ(config::FormatDuration(short_plan.seconds_before_pause), "16m 40s");
  // Daily DP windows: 30 charges per period, no counter starts.
  c.dp.window_seconds = 86400;
  const config::DpBudgetPlan daily = PlanDpBudget(c);
  EXPECT_EQ(daily.releases_per_period, 30);
  EXPECT_EQ(daily.tree_starts_per_period, 0);
  EXPECT_NEAR(daily.epsilon_per_period, 3, 1e-9);
  EXPECT_TRUE(daily.lasts_period);
  EXPECT_EQ(config::DescribeDpBudget(c, daily),
            "dp budget: 3 of 10 epsilon per 30 days (30 windows, 0.1 each, 86400 s windows): lasts the period, "
            "publication never pauses");
}

TEST_F(LoadConfigTest, DefaultsApplyForOmittedKeys) {
  config::Config c = config::LoadConfig(WriteConfig(kBaseConfig));
  EXPECT_EQ(c.kafka.group_id, "vanon");
  EXPECT_EQ(c.kafka.topics.input, "vehicle.events.raw");
  EXPECT_EQ(c.kafka.topics.late, "vehicle.events.late");
  EXPECT_EQ(c.kafka.poll_batch_max, 5000);
  EXPECT_TRUE(c.kafka.create_internal_topics);
  EXPECT_EQ(c.input.max_message_bytes, 1048576);
  // 2000-01-01 is 10957 days after 1970-01-01.
  EXPECT_EQ(c.input.timestamp.min_ms, int64_t{10957} * 86400 * 1000);
  EXPECT_EQ(c.input.fields.trip, "trip_id");
  EXPECT_EQ(c.payload.time_bucket_seconds, 60);
  EXPECT_EQ(c.privacy.k, 5);
  EXPECT_EQ(c.privacy.late_events, config::LateEvents::kTopic);
  EXPECT_EQ(c.dp.max_cells, 4);
  EXPECT_EQ(c.security.hmac_key_env, "VANON_HMAC_KEY");
  EXPECT_EQ(c.logging.level, config::LogLevel::kInfo);
}

// privacy.preset supplies the defaults of the keys it governs; absent, it is
// the preset the utility benchmark measured best (docs/config.md).
TEST_F(LoadConfigTest, PresetSetsTheDefaultsOfItsKeys) {
  const config::Config absent = config::LoadConfig(WriteConfig(kBaseConfig));
  EXPECT_EQ(absent.privacy.preset, config::PrivacyPreset::kHistory);
  EXPECT_EQ(absent.sensitive->window_epochs, 3);
  EXPECT_EQ(absent.sensitive->missing_policy, config::MissingPolicy::kCarry);
  EXPECT_EQ(absent.sensitive->carry_epochs, 24);
  EXPECT_EQ(absent.privacy.history_slots, 8);
  EXPECT_EQ(absent.privacy.learn_events, 20);
  EXPECT_EQ(absent.privacy.max_delay_epochs, 4);
  EXPECT_EQ(absent.privacy.shared_signatures, 0);
  EXPECT_FALSE(absent.privacy.preset_customized);

  const config::Config epoch = config::LoadConfig(WriteConfig(kBaseConfig), {"privacy.preset=epoch"});
  EXPECT_EQ(epoch.sensitive->window_epochs, 1);
  EXPECT_EQ(epoch.sensitive->missing_policy, config::MissingPolicy::kMissingValue);
  EXPECT_EQ(epoch.privacy.history_slots, 0);
  EXPECT_EQ(epoch.privacy.learn_events, 0);
  EXPECT_EQ(epoch.privacy.max_delay_epochs, 2);

  const config::Config shared = config::LoadConfig(WriteConfig(kBaseConfig), {"privacy.preset=shared"});
  EXPECT_EQ(shared.privacy.shared_signatures, 20);
  EXPECT_EQ(shared.sensitive->window_epochs, 6);
}

TEST_F(LoadConfigTest, KeysWrittenInTheFileWinOverThePreset) {
  const config::Config c = config::LoadConfig(
      WriteConfig(kBaseConfig), {"privacy.preset=history", "privacy.history_slots=2", "sensitive.window_epochs=1"});
  EXPECT_EQ(c.privacy.history_slots, 2);
  EXPECT_EQ(c.sensitive->window_epochs, 1);
  EXPECT_EQ(c.privacy.learn_events, 20);  // still the preset's
  EXPECT_TRUE(c.privacy.preset_customized);
}

// A preset value that does not apply is dropped; written in the file, the
// same value is refused (invalid_config_test.cc).
TEST_F(LoadConfigTest, PresetValuesThatDoNotApplyFallBackToPlainDefaults) {
  const config::Config last = config::LoadConfig(WriteConfig(kBaseConfig), {"sensitive.aggregator=last"});
  EXPECT_EQ(last.sensitive->window_epochs, 1);
  EXPECT_EQ(last.sensitive->missing_policy, config::MissingPolicy::kCarry);
  // A config with max_delay_epochs: 0 (no waiting) starts without learning.
  const config::Config no_wait = config::LoadConfig(WriteConfig(kBaseConfig), {"privacy.max_delay_epochs=0"});
  EXPECT_EQ(no_wait.privacy.learn_events, 0);
  EXPECT_EQ(no_wait.privacy.history_slots, 8);
  const config::Config k = config::LoadConfig(WriteConfig(kBaseConfig), {"privacy.model=k_anonymity"});
  EXPECT_EQ(k.privacy.history_slots, 0);
  EXPECT_EQ(k.privacy.learn_events, 0);
}

TEST_F(LoadConfigTest, RelativePathsResolveAgainstConfigDirectory) {
  config::Config c = config::LoadConfig(WriteConfig(kBaseConfig));
  EXPECT_EQ(c.quasi_identifiers[0].hierarchy, Abs("h/engine.csv"));
  EXPECT_EQ(c.vehicle.vin_table, Abs("vehicle/vin.yaml"));
  EXPECT_EQ(c.state.dir, Abs("state"));
  EXPECT_EQ(c.path, Abs("vanon.yaml"));
}

TEST_F(LoadConfigTest, OverridesApplyBeforeValidation) {
  config::Config c = config::LoadConfig(
      WriteConfig(kBaseConfig), {"kafka.bootstrap=127.0.0.1:1234", "privacy.m=7", "quasi_identifiers.1.bins.width=5",
                                 "kafka.topics={input: raw.in}", "logging.level=debug"});
  EXPECT_EQ(c.kafka.bootstrap, "127.0.0.1:1234");
  EXPECT_EQ(c.privacy.m, 7);
  EXPECT_EQ(c.quasi_identifiers[1].bin_width, 5);
  EXPECT_EQ(c.kafka.topics.input, "raw.in");
  EXPECT_EQ(c.kafka.topics.dlq, "vehicle.events.dlq");
  EXPECT_EQ(c.logging.level, config::LogLevel::kDebug);
}

TEST_F(LoadConfigTest, NumericPrecisionDefaultsToZeroAndIsRead) {
  config::Config c = config::LoadConfig(WriteConfig(kBaseConfig));
  EXPECT_EQ(c.quasi_identifiers[1].precision, 0);
  c = config::LoadConfig(WriteConfig(kBaseConfig), {"quasi_identifiers.1.precision=2"});
  EXPECT_EQ(c.quasi_identifiers[1].precision, 2);
}

TEST_F(LoadConfigTest, OverrideKeepsDotsInKafkaPropertyNames) {
  config::Config c = config::LoadConfig(
      WriteConfig(kBaseConfig), {"kafka.properties.sasl.username=vanon", "kafka.producer_properties.linger.ms=5"});
  EXPECT_EQ(c.kafka.properties.at("sasl.username"), "vanon");
  EXPECT_EQ(c.kafka.properties.at("security.protocol"), "PLAINTEXT");
  EXPECT_EQ(c.kafka.producer_properties.at("linger.ms"), "5");
  try {
    config::LoadConfig(WriteConfig(kBaseConfig), {"kafka.properties.group.id=x"});
    FAIL() << "group.id accepted in kafka.properties";
  } catch (const config::ConfigError& e) {
    ParsedError got = ParseFirstError(e.what());
    EXPECT_EQ(got.file, "--set");
    EXPECT_EQ(got.line, 1);
    EXPECT_EQ(got.key, "kafka.properties.group.id");
  }
}

TEST_F(LoadConfigTest, LaterOverrideWins) {
  config::Config c = config::LoadConfig(WriteConfig(kBaseConfig), {"privacy.m=7", "privacy.m=9"});
  EXPECT_EQ(c.privacy.m, 9);
}

TEST_F(LoadConfigTest, OverrideCanAddAMissingSection) {
  std::string text = Replace(kBaseConfig, "http:\n  listen: 127.0.0.1:9464\n", "");
  // Override values are YAML: a leading '[' must be quoted.
  config::Config c = config::LoadConfig(WriteConfig(text), {"http.listen=\"[::1]:8080\""});
  EXPECT_EQ(c.http.host, "::1");
  EXPECT_EQ(c.http.port, 8080);
}

TEST_F(LoadConfigTest, OverrideFilePathIsAbsoluteOrCwdRelative) {
  std::string other = dir_.Write("elsewhere/vin2.yaml", "{}\n");
  config::Config c = config::LoadConfig(WriteConfig(kBaseConfig), {"vehicle.vin_table=" + other});
  EXPECT_EQ(c.vehicle.vin_table, other);
}

TEST_F(LoadConfigTest, KAnonymityNeedsNoSensitive) {
  std::string text = Replace(kBaseConfig,
                             "sensitive:\n  field: payload.artist\n"
                             "  aggregator: mode\n  missing_value: Radio\n",
                             "");
  text = Replace(text, "model: m_invariance", "model: k_anonymity");
  config::Config c = config::LoadConfig(WriteConfig(text));
  EXPECT_EQ(c.privacy.model, config::PrivacyModel::kKAnonymity);
  EXPECT_FALSE(c.sensitive.has_value());
  // ...but a distinct-l cap needs a sensitive attribute.
  EXPECT_THROW(config::LoadConfig(WriteConfig(text), {"privacy.l=3"}), config::ConfigError);
}

TEST_F(LoadConfigTest, EventFieldsSourceNeedsAFieldPerQi) {
  std::string text = Replace(kBaseConfig, "source: vin_table\n  vin_table: vehicle/vin.yaml",
                             "source: event_fields\n  fields: {engine: car.engine, "
                             "seats: car.seats, model_year: car.year}");
  config::Config c = config::LoadConfig(WriteConfig(text));
  EXPECT_EQ(c.vehicle.source, config::VehicleSource::kEventFields);
  EXPECT_EQ(c.vehicle.fields.at("model_year"), "car.year");

  std::string missing = Replace(text, ", model_year: car.year}", "}");
  try {
    config::LoadConfig(WriteConfig(missing));
    FAIL() << "loaded without a field for model_year";
  } catch (const config::ConfigError& e) {
    ParsedError got = ParseFirstError(e.what());
    EXPECT_EQ(got.key, "vehicle.fields");
    EXPECT_EQ(got.line, LineOf(missing, "fields: {engine"));
    EXPECT_NE(got.message.find("model_year"), std::string::npos);
  }
}

TEST_F(LoadConfigTest, RegistrySource) {
  dir_.Write("registry.csv", "vin,engine\n");
  std::string text = Replace(kBaseConfig, "source: vin_table\n  vin_table: vehicle/vin.yaml",
                             "source: registry\n  registry: {file: registry.csv}");
  text = Replace(text, "  field: payload.artist\n  aggregator: mode\n",
                 "  aggregator: registry\n  registry_column: artist\n");
  config::Config c = config::LoadConfig(WriteConfig(text));
  EXPECT_EQ(c.vehicle.registry.file, Abs("registry.csv"));
  EXPECT_EQ(c.vehicle.registry.key_column, "vin");
  EXPECT_EQ(c.sensitive->aggregator, config::SensitiveAggregator::kRegistry);
  EXPECT_EQ(c.sensitive->registry_column, "artist");
}

TEST_F(LoadConfigTest, ReportsEveryErrorSortedByLine) {
  std::string text = Replace(kBaseConfig, "  m: 5\n", "  m: 0\n");
  text = Replace(text, "  bootstrap:", "  bootstrapp:");
  try {
    config::LoadConfig(WriteConfig(text));
    FAIL() << "loaded an invalid config";
  } catch (const config::ConfigError& e) {
    std::string what = e.what();
    std::string second = what.substr(what.find('\n') + 1);
    EXPECT_EQ(ParseFirstError(what).key, "kafka.bootstrap");     // line 1 (kafka:)
    EXPECT_EQ(ParseFirstError(second).key, "kafka.bootstrapp");  // line 2
    EXPECT_EQ(ParseFirstError(second).line, 2);
    EXPECT_NE(what.find("privacy.m: 0 is out of range"), std::string::npos) << what;
  }
}

TEST_F(LoadConfigTest, MissingFileIsAConfigError) {
  std::string path = (dir_.path() / "absent.yaml").string();
  try {
    config::LoadConfig(path);
    FAIL() << "loaded a missing file";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(ParseFirstError(e.what()).file, path);
  }
}

TEST_F(LoadConfigTest, EmptyFileIsAConfigError) {
  EXPECT_THROW(config::LoadConfig(WriteConfig("")), config::ConfigError);
  EXPECT_THROW(config::LoadConfig(WriteConfig("- a\n- b\n")), config::ConfigError);
}

}  // namespace
}  // namespace vanon::testing
