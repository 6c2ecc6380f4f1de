// Helpers shared by the fleet tests.
#ifndef VANON_TESTS_FLEET_TEST_UTIL_H_
#define VANON_TESTS_FLEET_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <fstream>
#include <string>

namespace vanon::test {

inline std::string SourcePath(const std::string& relative) { return std::string(VANON_SOURCE_DIR) + "/" + relative; }

// Writes `text` to a fresh file under the test temp dir and returns its path.
inline std::string WriteTempFile(const std::string& name, const std::string& text) {
  const testing::TestInfo* info = testing::UnitTest::GetInstance()->current_test_info();
  const std::string path =
      testing::TempDir() + "vanon_fleet_" + info->test_suite_name() + "_" + info->name() + "_" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return path;
}

// Runs `fn`, which must throw std::runtime_error; returns its message.
template <typename Fn>
std::string ErrorOf(Fn fn) {
  try {
    fn();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no std::runtime_error thrown";
  return "";
}

}  // namespace vanon::test

#endif  // VANON_TESTS_FLEET_TEST_UTIL_H_
