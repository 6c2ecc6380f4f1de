// A fresh directory per test, removed afterwards: every test opens its own
// RocksDB store.
#ifndef VANON_TESTS_STATE_TEMP_DIR_H_
#define VANON_TESTS_STATE_TEMP_DIR_H_

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace vanon::state {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "vanon-state-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace vanon::state

#endif  // VANON_TESTS_STATE_TEMP_DIR_H_
