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

std::vector<FuzzTarget> WithFindings() {
  std::vector<FuzzTarget> out;
  for (const FuzzTarget& t : kFuzzTargets) {
    if (t.has_findings) out.push_back(t);
  }
  return out;
}

std::string ParamName(const testing::TestParamInfo<FuzzTarget>& info) { return info.param.name; }

class FuzzReplayTest : public testing::TestWithParam<FuzzTarget> {};

TEST_P(FuzzReplayTest, SeedCorpusHoldsEveryInvariant) {
  const std::string dir = SourcePath(std::string("tests/fuzz/corpus/") + GetParam().name);
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << "no seed corpus " << dir;
  EXPECT_GE(Replay(GetParam(), dir), 5u) << "the seed corpus " << dir << " is (nearly) empty";
}

INSTANTIATE_TEST_SUITE_P(Harnesses, FuzzReplayTest, testing::ValuesIn(kFuzzTargets), ParamName);

// Only for the harnesses that have findings, each of which must replay at
// least one: an instance with nothing to replay could not fail.
class FuzzFindingsTest : public testing::TestWithParam<FuzzTarget> {};

TEST_P(FuzzFindingsTest, FindingsStayFixed) {
  const std::string dir = SourcePath(std::string("tests/fuzz/findings/") + GetParam().name);
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << "no findings directory " << dir;
  EXPECT_GE(Replay(GetParam(), dir), 1u) << "the findings directory " << dir << " is empty";
}

INSTANTIATE_TEST_SUITE_P(Harnesses, FuzzFindingsTest, testing::ValuesIn(WithFindings()), ParamName);

// And the other way round: every findings directory belongs to a harness
// that says it has findings, so none is left out of the replay.
TEST(FuzzFindingsDirectories, EveryOneIsReplayed) {
  for (const auto& entry : std::filesystem::directory_iterator(SourcePath("tests/fuzz/findings"))) {
    if (!entry.is_directory()) continue;
    const std::string name = entry.path().filename().string();
    const auto it = std::find_if(std::begin(kFuzzTargets), std::end(kFuzzTargets),
                                 [&](const FuzzTarget& t) { return name == t.name; });
    EXPECT_TRUE(it != std::end(kFuzzTargets) && it->has_findings)
        << entry.path().string() << " is not replayed: no harness of that name says it has findings (fuzz_targets.h)";
  }
}

}  // namespace
}  // namespace vanon::fuzz
