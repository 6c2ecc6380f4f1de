// Each case breaks the valid base config in one way and checks that the first
// error names the right file, line and key. The expected line is found by
// searching the test's own YAML text, never taken from the code under test.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base_config.h"
#include "config_test_util.h"
#include "vanon/config.h"

namespace vanon::testing {
namespace {

struct InvalidCase {
  const char* name;
  std::string from;  // replaced in kBaseConfig by `to`
  std::string to;
  // The expected line is the first line containing `line_of`; for errors
  // from overrides it is the override's position instead.
  std::string line_of;
  std::string key;
  std::string message_part;
  std::vector<std::string> overrides = {};
  int override_line = 0;  // expected LINE when the error comes from --set
};

std::vector<InvalidCase> Cases() {
  return {
      {"UnknownTopLevelKey", "state:\n", "metrics: {}\nstate:\n", "metrics:", "metrics", "unknown key"},
      {"UnknownNestedKey", "  m: 5\n", "  m: 5\n  mm: 3\n", "mm:", "privacy.mm", "unknown key"},
      {"UnknownKeyInListItem", "hierarchy: h/engine.csv}", "hierarchy: h/engine.csv, colour: red}", "colour",
       "quasi_identifiers[0].colour", "unknown key"},
      {"WrongTypeString", "  m: 5\n", "  m: five\n", "m: five", "privacy.m", "expected an integer"},
      {"WrongTypeList", "  m: 5\n", "  m: [5]\n", "m: [5]", "privacy.m", "expected an integer"},
      {"QuotedNumber", "  m: 5\n", "  m: \"5\"\n", "m: \"5\"", "privacy.m", "expected an integer"},
      {"MOutOfRangeLow", "  m: 5\n", "  m: 1\n", "m: 1", "privacy.m", "out of range"},
      {"SharedSignatureSizeBelowM", "  m: 5\n", "  m: 5\n  shared_signature_size: 3\n", "shared_signature_size: 3",
       "privacy.shared_signature_size", "at least privacy.m (5)"},
      {"SharedSignaturesNegative", "  m: 5\n", "  m: 5\n  shared_signatures: -1\n", "shared_signatures: -1",
       "privacy.shared_signatures", "out of range"},
      {"SharedSignaturesUnderKAnonymity", "  model: m_invariance\n", "  model: k_anonymity\n  shared_signatures: 3\n",
       "shared_signatures: 3", "privacy.shared_signatures", "only with privacy.model: m_invariance"},
      {"MOutOfRangeHigh", "  m: 5\n", "  m: 1001\n", "m: 1001", "privacy.m", "out of range"},
      {"SensitiveDimensionWithoutValues", "dimensions: [event, qi:engine]}", "dimensions: [sensitive, qi:engine]}",
       "dimensions: [sensitive", "dp.queries[0].dimensions[0]", "needs dp.sensitive_values"},
      {"SensitiveValuesListOther", "  event_names: [trip_started, touchscreen_used]\n",
       "  event_names: [trip_started, touchscreen_used]\n  sensitive_values: [Radio, other]\n",
       "sensitive_values:", "dp.sensitive_values", "cannot be listed"},
      {"SensitiveValuesTwice", "  event_names: [trip_started, touchscreen_used]\n",
       "  event_names: [trip_started, touchscreen_used]\n  sensitive_values: [Radio, Radio]\n",
       "sensitive_values:", "dp.sensitive_values", "twice"},
      {"UnknownPreset", "  m: 5\n", "  m: 5\n  preset: fancy\n", "preset: fancy", "privacy.preset",
       "must be one of epoch, window, history, shared"},
      {"WindowWithoutMode", "  aggregator: mode\n", "  aggregator: last\n  window_epochs: 4\n", "window_epochs: 4",
       "sensitive.window_epochs", "only with aggregator: mode"},
      {"WindowZero", "  aggregator: mode\n", "  aggregator: mode\n  window_epochs: 0\n", "window_epochs: 0",
       "sensitive.window_epochs", "out of range"},
      {"CarryWithoutEpochs",
       "  m: 5\n",
       "  m: 5\n  preset: epoch\n",
       "",
       "sensitive.carry_epochs",
       "required with missing_policy: carry",
       {"sensitive.missing_policy=carry"},
       1},
      {"CarryEpochsWithoutCarry", "  aggregator: mode\n",
       "  aggregator: mode\n  missing_policy: missing_value\n  carry_epochs: 5\n", "carry_epochs: 5",
       "sensitive.carry_epochs", "only used with missing_policy: carry"},
      {"HistorySlotsUnderKAnonymity", "  model: m_invariance\n", "  model: k_anonymity\n  history_slots: 3\n",
       "history_slots: 3", "privacy.history_slots", "only with privacy.model: m_invariance"},
      {"LearningWithoutDelay", "  m: 5\n", "  m: 5\n  learn_events: 5\n  max_delay_epochs: 0\n", "learn_events: 5",
       "privacy.learn_events", "needs privacy.max_delay_epochs > 0"},
      {"HistoryMinShareZero", "  m: 5\n", "  m: 5\n  history_min_share: 0\n", "history_min_share: 0",
       "privacy.history_min_share", "out of range"},
      {"EpsilonZeroIsOpenBound", "epsilon_per_release: 0.00003", "epsilon_per_release: 0", "epsilon_per_release",
       "dp.epsilon_per_release", "out of range"},
      // A budget that cannot last its period is refused. 10 per 30
      // days at 0.1 is 100 charges; the first release also starts the
      // running totals (2 charges), so 99 releases of 10 s publish.
      {"DpBudgetDoesNotLastItsPeriod", "epsilon_per_release: 0.00003", "epsilon_per_release: 0.1",
       "epsilon_per_release: 0.1", "dp.epsilon_per_release",
       "the budget lasts 16m 30s (99 releases), less than its 30-day period"},
      {"DpWindowNotAMultipleOfTheEpoch", "  enabled: true\n", "  enabled: true\n  window_seconds: 25\n",
       "window_seconds: 25", "dp.window_seconds", "multiple of privacy.epoch.length_seconds (10)"},
      // 10 per 30 days at 0.1 per 1-hour window: 100 windows.
      {"DpWindowBudgetDoesNotLast", "epsilon_per_release: 0.00003", "epsilon_per_release: 0.1\n  window_seconds: 3600",
       "epsilon_per_release: 0.1", "dp.epsilon_per_release",
       "the budget lasts 4d 4h (100 windows), less than its 30-day period"},
      {"DpBudgetDoesNotLastAfterOverride",
       "",
       "",
       "",
       "dp.epsilon_per_release",
       "less than its 30-day period",
       {"dp.epsilon_per_release=0.0001"},
       1},
      {"BadEnum", "model: m_invariance", "model: l_diversity", "l_diversity", "privacy.model", "must be one of"},
      {"BadBool", "enabled: true", "enabled: yes", "enabled: yes", "dp.enabled", "true or false"},
      {"CreateInternalTopicsNotABool", "  bootstrap: \"127.0.0.1:9092\"\n",
       "  bootstrap: \"127.0.0.1:9092\"\n  create_internal_topics: sometimes\n", "create_internal_topics: sometimes",
       "kafka.create_internal_topics", "true or false"},
      {"MissingRequiredKey", "  bootstrap: \"127.0.0.1:9092\"\n", "", "kafka:", "kafka.bootstrap",
       "missing required key"},
      {"MissingStateDir", "  dir: state\n", "  {}\n", "state:", "state.dir", "missing required key"},
      {"ListenWithoutPort", "listen: 127.0.0.1:9464", "listen: 127.0.0.1", "listen:", "http.listen", "host:port"},
      {"ListenPortOutOfRange", "listen: 127.0.0.1:9464", "listen: 127.0.0.1:70000", "listen:", "http.listen",
       "out of range"},
      {"NonexistentHierarchy", "h/engine.csv", "h/nope.csv", "h/nope.csv", "quasi_identifiers[0].hierarchy",
       "file not found"},
      {"NonexistentVinTable", "vehicle/vin.yaml", "vehicle/none.yaml", "none.yaml", "vehicle.vin_table",
       "file not found"},
      {"PrecisionOutOfRange", "bins: {width: 2}, range", "bins: {width: 2}, precision: 7, range", "precision: 7",
       "quasi_identifiers[1].precision", "out of range"},
      {"PrecisionOnCategorical", "hierarchy: h/engine.csv}", "hierarchy: h/engine.csv, precision: 1}", "precision: 1",
       "quasi_identifiers[0].precision", "only for numeric"},
      {"DuplicateQiName", "{name: seats,", "{name: engine,", "{name: engine, type", "quasi_identifiers[1].name",
       "duplicate"},
      {"KpiUnknownQuery", "numerator: touch_by_engine", "numerator: nope", "numerator: nope", "dp.kpis[0].numerator",
       "no query named"},
      {"BadRfc3339", "state:\n", "input:\n  timestamp: {min: \"2021-02-30T00:00:00Z\"}\nstate:\n", "2021-02-30",
       "input.timestamp.min", "RFC 3339"},
      {"MinTimestampBefore1970", "state:\n", "input:\n  timestamp: {min: \"1969-12-31T23:59:59Z\"}\nstate:\n",
       "1969-12-31", "input.timestamp.min", "must not be negative"},
      {"SensitiveMissingInMInvariance",
       "sensitive:\n  field: payload.artist\n  aggregator: mode\n"
       "  missing_value: Radio\n",
       "", "model: m_invariance", "sensitive", "m_invariance"},
      {"DuplicateKey", "  m: 5\n", "  m: 5\n  m: 6\n", "m: 6", "privacy.m", "duplicate key"},
      {"DimensionUnknownQi", "dimensions: [event, qi:engine]}", "dimensions: [event, qi:colour]}", "qi:colour",
       "dp.queries[0].dimensions[1]", "unknown quasi-identifier"},
      {"EventDimensionWithoutEventNames", "  event_names: [trip_started, touchscreen_used]\n", "",
       "dimensions: [event, qi:engine]}", "dp.queries[0].dimensions[0]", "dp.event_names"},
      {"RangeMinNotBelowMax", "range: {min: 1, max: 9}", "range: {min: 9, max: 9}", "{min: 9, max: 9}",
       "quasi_identifiers[1].range.max", "greater"},
      {"BinWithoutWidth", "transform: bin, width: 10}", "transform: bin}", "transform: bin}", "payload.fields[1].width",
       "missing required key"},
      {"SectionNotAMapping", "http:\n  listen: 127.0.0.1:9464\n", "http: 8080\n", "http: 8080", "http",
       "expected a mapping"},
      {"ReservedKafkaProperty", "{security.protocol: PLAINTEXT}", "{group.id: other}", "group.id",
       "kafka.properties.group.id", "kafka.group_id"},
      {"RegistrySourceWithoutRegistry", "source: vin_table\n  vin_table: vehicle/vin.yaml", "source: registry",
       "vehicle:", "vehicle.registry", "missing required key"},
      {"SyntaxError", "  m: 5\n", "  m: 5: 6\n", "m: 5: 6", "(syntax)", ""},
      {"OverrideUnknownKey", "", "", "", "privacy.bogus", "unknown key", {"privacy.bogus=1"}, 1},
      {"OverrideIntoScalar",
       "",
       "",
       "",
       "kafka.bootstrap.host",
       "scalar",
       {"privacy.m=7", "kafka.bootstrap.host=x"},
       2},
      {"OverrideWrongType", "", "", "", "privacy.m", "expected an integer", {"privacy.m=abc"}, 1},
      {"OverrideWithoutEquals", "", "", "", "privacy.m", "dotted.key=value", {"privacy.m"}, 1},
      {"SeedTransactionRecordsZero",
       "",
       "",
       "",
       "state.changelog.seed_transaction_records",
       "out of range",
       {"state.changelog.seed_transaction_records=0"},
       1},
      {"ReleaseStallZero", "listen: 127.0.0.1:9464", "listen: 127.0.0.1:9464\n  release_stall_seconds: 0",
       "release_stall_seconds", "http.release_stall_seconds", "out of range"},
      // No config may publish the sensitive value by another path.
      {"SensitiveKeptInPayload", "    - {path: source, transform: keep}\n",
       "    - {path: source, transform: keep}\n    - {path: artist, transform: keep}\n",
       "{path: artist, transform: keep}", "payload.fields[1].transform", "sensitive field"},
      {"SensitiveBinnedInPayload", "    - {path: source, transform: keep}\n",
       "    - {path: source, transform: keep}\n    - {path: artist, transform: bin, width: 1}\n",
       "{path: artist, transform: bin", "payload.fields[1].transform", "sensitive field"},
      // `source` is kept whole, and the sensitive value lies inside it.
      {"SensitiveInsideKeptObject", "  field: payload.artist\n", "  field: payload.source.name\n", "{path: source",
       "payload.fields[0].transform", "sensitive field"},
      {"DefaultKeepWithoutDropOfSensitive", "  default: drop\n", "  default: keep\n", "default: keep",
       "payload.default", "sensitive field"},
      {"SensitiveIsEventName", "  field: payload.artist\n", "  field: event\n", "field: event", "sensitive.field",
       "published in every anonymized event"},
      {"SensitiveIsEventFieldQi", "source: vin_table\n  vin_table: vehicle/vin.yaml",
       "source: event_fields\n  fields: {engine: payload.artist, seats: payload.seats, model_year: payload.year}",
       "fields: {engine", "vehicle.fields.engine", "sensitive field"},
      {"OverrideFlowMappingBadTopic",
       "",
       "",
       "",
       "kafka.topics.input",
       "not a valid Kafka topic",
       {"kafka.topics={input: \"a b\"}"},
       1},
  };
}

// The refusals above are about publishing the value, not about the
// transforms themselves: keeping the payload by default is fine once the
// sensitive field is dropped explicitly.
TEST(SensitiveNotPublished, DefaultKeepWithExplicitDropLoads) {
  ScratchDir dir;
  WriteBaseStubs(dir);
  const std::string text =
      Replace(Replace(kBaseConfig, "  default: drop\n", "  default: keep\n"), "    - {path: source, transform: keep}\n",
              "    - {path: source, transform: keep}\n    - {path: artist, transform: drop}\n");
  EXPECT_NO_THROW(config::LoadConfig(dir.Write("vanon.yaml", text), {}));
}

// Keeps gtest from dumping the struct's bytes into test names and logs.
void PrintTo(const InvalidCase& c, std::ostream* os) { *os << c.name; }

class InvalidConfigTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(InvalidConfigTest, ReportsFileLineAndKey) {
  const InvalidCase& c = GetParam();
  ScratchDir dir;
  WriteBaseStubs(dir);
  std::string text = c.from.empty() ? std::string(kBaseConfig) : Replace(kBaseConfig, c.from, c.to);
  std::string path = dir.Write("vanon.yaml", text);
  try {
    config::LoadConfig(path, c.overrides);
    FAIL() << "config loaded but should fail:\n" << text;
  } catch (const config::ConfigError& e) {
    ParsedError got = ParseFirstError(e.what());
    if (c.overrides.empty()) {
      EXPECT_EQ(got.file, path) << e.what();
      int want_line = LineOf(text, c.line_of);
      ASSERT_GT(want_line, 0) << "needle not in text: " << c.line_of;
      EXPECT_EQ(got.line, want_line) << e.what();
    } else {
      EXPECT_EQ(got.file, "--set") << e.what();
      EXPECT_EQ(got.line, c.override_line) << e.what();
    }
    EXPECT_EQ(got.key, c.key) << e.what();
    EXPECT_NE(got.message.find(c.message_part), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, InvalidConfigTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<InvalidCase>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace vanon::testing
