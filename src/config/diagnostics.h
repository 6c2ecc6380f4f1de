// Collects configuration errors and decides where each one points.
//
// Errors are addressed by dotted key path ("privacy.m", "dp.queries[1].name").
// Every key read from the file has its line recorded here, so that checks
// that span several sections can still point at the right line; a value that
// came from a --set override points at that override instead.

#ifndef VANON_SRC_CONFIG_DIAGNOSTICS_H_
#define VANON_SRC_CONFIG_DIAGNOSTICS_H_

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace vanon::config::internal {

class Diagnostics {
 public:
  explicit Diagnostics(std::string file);

  Diagnostics(const Diagnostics&) = delete;
  Diagnostics& operator=(const Diagnostics&) = delete;

  const std::string& file() const { return file_; }

  // The first mark recorded for a path wins (a duplicate key is an error
  // reported separately).
  void RecordMark(const std::string& path, const YAML::Mark& mark);
  // `index` is 1-based; a later override of the same path wins.
  void RecordOverride(const std::string& path, int index);

  // The override that set `path` or one of its ancestors, 0 if none.
  int OverrideIndex(const std::string& path) const;

  // Relative paths are resolved against the config file's directory, or
  // against the working directory when the value came from an override.
  std::filesystem::path Resolve(const std::string& key_path, const std::string& value) const;

  void Error(const std::string& path, const std::string& message);
  // Reports `path` but points at the line of `where` (for a key that is
  // missing because of another key, e.g. sensitive vs privacy.model).
  void ErrorNear(const std::string& where, const std::string& path, const std::string& message);
  void Error(const YAML::Mark& mark, const std::string& path, const std::string& message);
  void OverrideError(int index, const std::string& path, const std::string& message);

  bool empty() const { return errors_.empty(); }
  // Throws ConfigError listing every error, sorted by line; no-op if none.
  void ThrowIfAny();

 private:
  struct Entry {
    bool from_override;
    int line;
    std::string text;
  };
  void Add(bool from_override, int line, const std::string& path, const std::string& message);
  // Nearest override recorded under `prefix` (for nodes an override created).
  int OverrideUnder(const std::string& prefix) const;

  std::string file_;
  std::filesystem::path base_dir_;
  std::map<std::string, YAML::Mark> marks_;
  std::map<std::string, int> overrides_;
  std::vector<Entry> errors_;
};

// "a.b[2].c" -> "a.b[2]" -> "a.b" -> "a" -> "".
std::string ParentPath(const std::string& path);
// Joins a parent path and a key: ("", "a") -> "a", ("a", "b") -> "a.b".
std::string ChildPath(const std::string& parent, const std::string& key);
std::string ItemPath(const std::string& parent, size_t index);

}  // namespace vanon::config::internal

#endif  // VANON_SRC_CONFIG_DIAGNOSTICS_H_
