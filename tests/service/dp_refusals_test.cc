// Every DP config refusal is made by `validate-config` and by `run` alike
// (issue 17): exit 2 with the same FILE:LINE: key line, before `run`
// connects anywhere. Before, some checks lived only in DpPublisher, so
// validate-config accepted configs that run then refused with exit 1.
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
  const char* key;  // expected in the error line
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

class DpRefusal : public ::testing::TestWithParam<Refusal> {};

TEST_P(DpRefusal, ValidateConfigAndRunRefuseAlike) {
  const Refusal& r = GetParam();
  TempDir dir;
  const std::string file = dir.path() + "/vanon.yaml";
  testing::WriteFile(file, Edited(r, dir.path()));

  Subprocess validate({VANON_BIN, "validate-config", file}, {}, /*capture_stderr=*/true);
  ASSERT_EQ(validate.Wait(60), 2) << validate.Output();
  const std::string line = ErrorLine(validate.Output(), file, r.key);
  ASSERT_FALSE(line.empty()) << "no " << r.key << " error in: " << validate.Output();

  // A bootstrap nothing listens on: run must refuse before connecting.
  Subprocess run({VANON_BIN, "run", "--config", file, "--set", "kafka.bootstrap=127.0.0.1:1"},
                 {"VANON_HMAC_KEY=dp-refusal-test-key-0123456789abcdef"}, /*capture_stderr=*/true);
  ASSERT_EQ(run.Wait(60), 2) << run.Output();
  EXPECT_EQ(ErrorLine(run.Output(), file, r.key), line) << run.Output();
}

const std::string kQueries = "  queries:\n";

INSTANTIATE_TEST_SUITE_P(
    Dp, DpRefusal,
    ::testing::Values(
        Refusal{"epsilon_with_ten_decimals", {{"epsilon_per_release: 0.0001", "epsilon_per_release: 0.0000000001"}},
                "dp.epsilon_per_release"},
        Refusal{"budget_with_ten_decimals", {{"budget: {epsilon: 10,", "budget: {epsilon: 10.0000000001,"}},
                "dp.budget.epsilon"},
        Refusal{"event_name_twice", {{"event_names: [trip_started,", "event_names: [trip_started, trip_started,"}},
                "dp.event_names"},
        Refusal{"numeric_qi_split_on_demand",
                {{kQueries, kQueries + "    - {name: by_year, count: vehicles, dimensions: [qi:model_year]}\n"}},
                "dp.queries[0].dimensions[0]"},
        Refusal{"numeric_qi_split_on_demand_in_filter",
                {{kQueries, kQueries + "    - {name: y2020, count: vehicles, dimensions: [qi:engine], "
                                       "filter: {\"qi:model_year\": \"2020\"}}\n"}},
                "dp.queries[0].filter.qi:model_year"},
        Refusal{"too_many_cells",
                {{"time_bucket_seconds: 10\n  queries:", "time_bucket_seconds: 1\n  window_seconds: 86400\n  queries:"}},
                "dp.queries[0].dimensions"},
        Refusal{"global_counts_without_windows",
                {{"time_bucket_seconds: 10\n  queries:",
                  "time_bucket_seconds: 10\n  aggregation: {topic: vanon.dp.partials}\n  queries:"}},
                "dp.aggregation.topic"}),
    [](const ::testing::TestParamInfo<Refusal>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace vanon::service
