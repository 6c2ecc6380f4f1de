// Replays every fuzz harness over its seed corpus (tests/fuzz/corpus/<name>)
// and over every input a fuzzer ever found a problem with
// (tests/fuzz/findings/<name>), under the normal build: a decoder fix that
// regresses fails here, in CI, and under ASan+UBSan (label unit).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "fuzz_targets.h"

namespace vanon::fuzz {
namespace {

std::vector<std::filesystem::path> Inputs(const std::string& dir) {
  std::vector<std::filesystem::path> files;
  if (!std::filesystem::is_directory(dir)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Runs the body over every file of `dir`; returns how many there were.
size_t Replay(const FuzzTarget& target, const std::string& dir) {
  const std::vector<std::filesystem::path> files = Inputs(dir);
  for (const std::filesystem::path& file : files) {
    const std::string input = ReadFile(file.string());
    try {
      target.body(input);
    } catch (const Violation& v) {
      ADD_FAILURE() << file.string() << ": " << v.what;
    } catch (const std::exception& e) {
      ADD_FAILURE() << file.string() << ": escaped exception: " << e.what();
    }
  }
  return files.size();
}

class FuzzReplayTest : public testing::TestWithParam<FuzzTarget> {};

TEST_P(FuzzReplayTest, SeedCorpusHoldsEveryInvariant) {
  const std::string dir = SourcePath(std::string("tests/fuzz/corpus/") + GetParam().name);
  EXPECT_GE(Replay(GetParam(), dir), 5u) << "the seed corpus " << dir << " is (nearly) empty";
}

TEST_P(FuzzReplayTest, FindingsStayFixed) {
  Replay(GetParam(), SourcePath(std::string("tests/fuzz/findings/") + GetParam().name));
}

INSTANTIATE_TEST_SUITE_P(Harnesses, FuzzReplayTest, testing::ValuesIn(kFuzzTargets),
                         [](const testing::TestParamInfo<FuzzTarget>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace vanon::fuzz
