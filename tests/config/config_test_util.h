// Helpers for config tests: a scratch directory and error-message parsing.

#ifndef VANON_TESTS_CONFIG_CONFIG_TEST_UTIL_H_
#define VANON_TESTS_CONFIG_CONFIG_TEST_UTIL_H_

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <gtest/gtest.h>

namespace vanon::testing {

// A fresh directory under the system temp dir, removed on destruction.
class ScratchDir {
 public:
  ScratchDir() {
    std::random_device rd;
    path_ =
        std::filesystem::temp_directory_path() / ("vanon-config-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

  // Writes `text` to the relative path `name`, creating directories.
  std::string Write(const std::string& name, const std::string& text) const {
    std::filesystem::path p = path_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }

 private:
  std::filesystem::path path_;
};

// The parts of "FILE:LINE: key.path: message" (first line of `what`).
struct ParsedError {
  std::string file;
  int line = -1;
  std::string key;
  std::string message;
};

inline ParsedError ParseFirstError(const std::string& what) {
  ParsedError e;
  std::string first = what.substr(0, what.find('\n'));
  // FILE may itself contain ':' only in odd paths; the tests' paths do not.
  size_t a = first.find(':');
  size_t b = first.find(": ", a + 1);
  size_t c = first.find(": ", b + 2);
  if (a == std::string::npos || b == std::string::npos || c == std::string::npos) {
    return e;
  }
  e.file = first.substr(0, a);
  e.line = std::stoi(first.substr(a + 1, b - a - 1));
  e.key = first.substr(b + 2, c - b - 2);
  e.message = first.substr(c + 2);
  return e;
}

// 1-based number of the first line of `text` containing `needle`, or -1.
inline int LineOf(const std::string& text, const std::string& needle) {
  size_t pos = text.find(needle);
  if (pos == std::string::npos) return -1;
  int line = 1;
  for (size_t i = 0; i < pos; ++i) line += text[i] == '\n';
  return line;
}

}  // namespace vanon::testing

#endif  // VANON_TESTS_CONFIG_CONFIG_TEST_UTIL_H_
