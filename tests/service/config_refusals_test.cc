// Every config refusal is made by `validate-config` and by `run` alike:
// exit 2 with the same FILE:LINE: key line, before `run`
// connects anywhere. Before, some checks lived only in DpPublisher or in
// SchemaFromConfig, so validate-config accepted configs that run then
// refused with exit 1.
//
// The table holds every check that once only `run` made (now in
// src/config: dp_checks.cc, parse_vehicle.cc's code range; or the QI
// resolver, which both commands pass to LoadConfig as its check) and a
// sample of the loader's own refusals (both commands load through
// LoadConfig). The refusals that need the broker stay run-only, each
// listed with its reason in tests/ops/check_refusals.py.
// tests/ops/check_refusals.py fails on any new config refusal raised
// outside src/config, so a check `run` alone makes cannot come back
// unnoticed.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "test_support.h"

namespace vanon::service {
namespace {

using testing::Subprocess;
using testing::TempDir;

struct Refusal {
  const char* name;
  std::vector<std::pair<std::string, std::string>> edits;  // replace first with second in demo.yaml
  const char* key;                                         // expected in the error line
  // When > 0: big.csv next to the config, a flat hierarchy with this many
  // leaves, for an edit to point a categorical QI at.
  int hierarchy_leaves = 0;
  // Data files written next to the config: {name, contents}.
  std::vector<std::pair<std::string, std::string>> files = {};
};

// demo.yaml, edited, in `dir` next to links to the files it names.
std::string Edited(const Refusal& r, const std::filesystem::path& dir) {
  const std::filesystem::path config = std::filesystem::path(VANON_SOURCE_DIR) / "config";
  for (const auto& entry : std::filesystem::directory_iterator(config)) {
    if (entry.is_directory()) std::filesystem::create_directory_symlink(entry.path(), dir / entry.path().filename());
  }
  std::string yaml = testing::ReadFile((config / "demo.yaml").string());
  for (const auto& [from, to] : r.edits) {
    const size_t at = yaml.find(from);
    EXPECT_NE(at, std::string::npos) << r.name << ": demo.yaml has no \"" << from << "\"";
    if (at != std::string::npos) yaml.replace(at, from.size(), to);
  }
  return yaml;
}

// The first line of `output` that names `key`, from "FILE:" to its end.
std::string ErrorLine(const std::string& output, const std::string& file, const std::string& key) {
  size_t at = 0;
  while ((at = output.find(file + ":", at)) != std::string::npos) {
    const size_t end = output.find('\n', at);
    const std::string line = output.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (line.find(": " + key + ":") != std::string::npos) return line;
    at = end;
  }
  return "";
}

class ConfigRefusal : public ::testing::TestWithParam<Refusal> {};

TEST_P(ConfigRefusal, ValidateConfigAndRunRefuseAlike) {
  const Refusal& r = GetParam();
  TempDir dir;
  const std::string file = dir.path() + "/vanon.yaml";
  testing::WriteFile(file, Edited(r, dir.path()));
  if (r.hierarchy_leaves > 0) {
    std::string csv;
    for (int i = 0; i < r.hierarchy_leaves; ++i) csv += "m" + std::to_string(i) + ";*\n";
    testing::WriteFile(dir.path() + "/big.csv", csv);
  }
  for (const auto& [name, contents] : r.files) testing::WriteFile(dir.path() + "/" + name, contents);

  Subprocess validate({VANON_BIN, "validate-config", file}, {}, /*capture_stderr=*/true);
  ASSERT_EQ(validate.Wait(60), 2) << validate.Output();
  const std::string line = ErrorLine(validate.Output(), file, r.key);
  ASSERT_FALSE(line.empty()) << "no " << r.key << " error in: " << validate.Output();

  // A bootstrap nothing listens on: run must refuse before connecting.
  Subprocess run({VANON_BIN, "run", "--config", file, "--set", "kafka.bootstrap=127.0.0.1:1"},
                 {"VANON_HMAC_KEY=dp-refusal-test-key-0123456789abcdef", testing::kStateKeysEnv},
                 /*capture_stderr=*/true);
  ASSERT_EQ(run.Wait(60), 2) << run.Output();
  EXPECT_EQ(ErrorLine(run.Output(), file, r.key), line) << run.Output();
}

const std::string kQueries = "  queries:\n";

const std::string kPrivacyM = "\n  m: 5\n";

INSTANTIATE_TEST_SUITE_P(
    Loader, ConfigRefusal,
    ::testing::Values(Refusal{"unknown_key",
                              {{"  poll_batch_max: 1000\n", "  poll_batch_max: 1000\n  poll_batch_size: 5\n"}},
                              "kafka.poll_batch_size"},
                      Refusal{"wrong_type", {{kPrivacyM, "\n  m: five\n"}}, "privacy.m"},
                      Refusal{"out_of_range", {{kPrivacyM, "\n  m: 1\n"}}, "privacy.m"},
                      Refusal{"duplicate_key", {{kPrivacyM, "\n  m: 5\n  m: 6\n"}}, "privacy.m"},
                      Refusal{"missing_file",
                              {{"hierarchies/body.csv", "hierarchies/no-such-file.csv"}},
                              "quasi_identifiers[2].hierarchy"},
                      Refusal{"epsilon_over_budget",
                              {{"epsilon_per_release: 1\n", "epsilon_per_release: 20\n"}},
                              "dp.epsilon_per_release"},
                      Refusal{"kpi_names_unknown_query",
                              {{"numerator: touchscreen_vehicles_by_engine", "numerator: no_such_query"}},
                              "dp.kpis[0].numerator"},
                      Refusal{"window_not_a_multiple_of_the_epoch",
                              {{"time_bucket_seconds: 10\n  queries:",
                                "time_bucket_seconds: 10\n  window_seconds: 15\n  queries:"}},
                              "dp.window_seconds"}),
    [](const ::testing::TestParamInfo<Refusal>& info) { return std::string(info.param.name); });

// Once made by SchemaFromConfig at `run` only.
INSTANTIATE_TEST_SUITE_P(Schema, ConfigRefusal,
                         ::testing::Values(Refusal{
                             "numeric_codes_outside_int32",
                             {{"range: {min: 1990, max: 2030}", "range: {min: 1990, max: 3000000000}"}},
                             "quasi_identifiers[4].range"}),
                         [](const ::testing::TestParamInfo<Refusal>& info) { return std::string(info.param.name); });

// Made by the QI resolver (src/service/qi_resolver.cc), once at `run`
// only: both commands now pass it to LoadConfig as its check.
const std::string kVinTable = "source: vin_table\n  vin_table: vehicle/vin-table.yaml";
const std::string kRegistry = "source: registry\n  registry: {file: fleet.csv, key_column: vin}";
const std::string kModeSensitive = "field: payload.artist\n  aggregator: mode";
const std::string kFleetCsv =
    "vin,manufacturer,engine,body,seats,model_year,artist\nWVWZZZ1JZXW000001,VW,petrol,hatch,5,2001,Abba\n";

INSTANTIATE_TEST_SUITE_P(
    Resolver, ConfigRefusal,
    ::testing::Values(
        Refusal{"qi_not_in_the_vin_table",
                {{"{name: body, hierarchy:", "{name: bodywork, hierarchy:"}},
                "quasi_identifiers[2].name"},
        Refusal{"vin_table_unreadable",
                {{"vin_table: vehicle/vin-table.yaml", "vin_table: broken-table.yaml"}},
                "vehicle.vin_table",
                0,
                {{"broken-table.yaml", "makers: [unclosed\n"}}},
        Refusal{"qi_not_in_the_registry",
                {{kVinTable, kRegistry}},
                "quasi_identifiers[3].name",
                0,
                {{"fleet.csv", "vin,manufacturer,engine,body,model_year\nWVWZZZ1JZXW000001,VW,petrol,hatch,2001\n"}}},
        Refusal{"registry_column_missing",
                {{kVinTable, kRegistry}, {kModeSensitive, "aggregator: registry\n  registry_column: genre"}},
                "sensitive.registry_column",
                0,
                {{"fleet.csv", kFleetCsv}}},
        Refusal{"registry_without_its_key_column",
                {{kVinTable, kRegistry}},
                "vehicle.registry.file",
                0,
                {{"fleet.csv", "id,manufacturer,engine,body,seats,model_year\n1,VW,petrol,hatch,5,2001\n"}}}),
    [](const ::testing::TestParamInfo<Refusal>& info) { return std::string(info.param.name); });

// Once made by DpPublisher at `run` only.
INSTANTIATE_TEST_SUITE_P(
    Dp, ConfigRefusal,
    ::testing::Values(
        Refusal{"epsilon_with_ten_decimals",
                {{"epsilon_per_release: 1\n", "epsilon_per_release: 0.0000000001\n"}},
                "dp.epsilon_per_release"},
        Refusal{"budget_with_ten_decimals",
                {{"budget: {epsilon: 100000,", "budget: {epsilon: 100000.0000000001,"}},
                "dp.budget.epsilon"},
        Refusal{"event_name_twice",
                {{"event_names: [trip_started,", "event_names: [trip_started, trip_started,"}},
                "dp.event_names"},
        Refusal{"numeric_qi_split_on_demand",
                {{kQueries, kQueries + "    - {name: by_year, count: vehicles, dimensions: [qi:model_year]}\n"}},
                "dp.queries[0].dimensions[0]"},
        Refusal{"numeric_qi_split_on_demand_in_filter",
                {{kQueries, kQueries + "    - {name: y2020, count: vehicles, dimensions: [qi:engine], "
                                       "filter: {\"qi:model_year\": \"2020\"}}\n"}},
                "dp.queries[0].filter.qi:model_year"},
        Refusal{
            "too_many_cells",
            {{"time_bucket_seconds: 10\n  queries:", "time_bucket_seconds: 1\n  window_seconds: 86400\n  queries:"}},
            "dp.queries[0].dimensions"},
        // The cells of a categorical QI are its hierarchy's leaves, which
        // validate-config used to count as 1 (the refusal came at run only).
        Refusal{"too_many_categorical_cells",
                {{"{name: manufacturer, hierarchy: hierarchies/manufacturer.csv}",
                  "{name: manufacturer, hierarchy: big.csv}"},
                 {kQueries, kQueries + "    - {name: by_make, count: vehicles, dimensions: [qi:manufacturer]}\n"}},
                "dp.queries[0].dimensions",
                100'001},
        Refusal{"global_counts_without_windows",
                {{"time_bucket_seconds: 10\n  queries:",
                  "time_bucket_seconds: 10\n  aggregation: {topic: vanon.dp.partials}\n  queries:"}},
                "dp.aggregation.topic"}),
    [](const ::testing::TestParamInfo<Refusal>& info) { return std::string(info.param.name); });

// An override is checked by both commands too, and reported at its
// position in the --set list.
TEST(ConfigRefusalOverride, ValidateConfigAndRunRefuseABadOverrideAlike) {
  TempDir dir;
  const std::string file = dir.path() + "/vanon.yaml";
  testing::WriteFile(file, Edited(Refusal{"override", {}, ""}, dir.path()));
  Subprocess validate({VANON_BIN, "validate-config", file, "--set", "privacy.m=1"}, {}, /*capture_stderr=*/true);
  ASSERT_EQ(validate.Wait(60), 2) << validate.Output();
  const std::string line = ErrorLine(validate.Output(), "--set", "privacy.m");
  ASSERT_FALSE(line.empty()) << "no --set privacy.m error in: " << validate.Output();

  Subprocess run({VANON_BIN, "run", "--config", file, "--set", "privacy.m=1", "--set", "kafka.bootstrap=127.0.0.1:1"},
                 {"VANON_HMAC_KEY=dp-refusal-test-key-0123456789abcdef", testing::kStateKeysEnv},
                 /*capture_stderr=*/true);
  ASSERT_EQ(run.Wait(60), 2) << run.Output();
  EXPECT_EQ(ErrorLine(run.Output(), "--set", "privacy.m"), line) << run.Output();

  // The same file without the override is fine for validate-config.
  Subprocess ok({VANON_BIN, "validate-config", file}, {}, /*capture_stderr=*/true);
  EXPECT_EQ(ok.Wait(60), 0) << ok.Output();
}

}  // namespace
}  // namespace vanon::service
