// LoadConfig: the YAML file and --set overrides. Input: the file's text,
// then optionally a line "#--set" (a YAML comment) followed by one override
// per line. The file sits beside copies of the repository's VIN table and
// hierarchies, so the demo config and its relatives load.
//
// Invariants: a refused config throws ConfigError and nothing else (no
// yaml-cpp or standard exception escapes), one problem per line, each
// "<file>:<line>: " with a line of the file, or "--set:<n>: " with n one of
// the overrides.
#include <filesystem>
#include <string>
#include <vector>

#include "error_format.h"
#include "fuzz_support.h"
#include "fuzz_targets.h"
#include "vanon/config.h"

namespace vanon::fuzz {

namespace {

// The config's directory, with the data files the demo config names.
std::string ConfigDir() {
  const std::string dir = ScratchDir() + "/config";
  for (const char* sub : {"vehicle", "hierarchies"}) {
    std::filesystem::create_directories(dir + "/" + sub);
    for (const auto& f : std::filesystem::directory_iterator(SourcePath(std::string("config/") + sub))) {
      std::filesystem::copy_file(f.path(), dir + "/" + sub + "/" + f.path().filename().string(),
                                 std::filesystem::copy_options::overwrite_existing);
    }
  }
  return dir;
}

std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) {
    const auto [line, rest] = SplitOnce(text, "\n");
    lines.emplace_back(line);
    text = rest;
  }
  return lines;
}

void CheckError(const config::ConfigError& e, const std::string& path, std::string_view yaml, size_t overrides) {
  const std::vector<std::string> lines = Lines(e.what());
  Check(!lines.empty(), "a ConfigError without a message");
  for (const std::string& line : lines) {
    if (line.rfind("--set:", 0) == 0) {
      const long n = CheckErrorLine(line, "--set", static_cast<long>(overrides));
      Check(n >= 1 && static_cast<size_t>(n) <= overrides, "an override error names no override");
    } else {
      CheckErrorLine(line, path, LineCount(yaml));
    }
  }
}

}  // namespace

void FuzzConfig(std::string_view input) {
  static const std::string path = ConfigDir() + "/vanon.yaml";
  const auto [yaml, set] = SplitOnce(input, "\n#--set\n");
  WriteFile(path, yaml);
  const std::vector<std::string> overrides = Lines(set);
  try {
    config::LoadConfig(path, overrides);
  } catch (const config::ConfigError& e) {
    CheckError(e, path, yaml, overrides.size());
  }
}

}  // namespace vanon::fuzz
