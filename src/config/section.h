// Typed, strict reading of one YAML mapping of the config.
//
// Every getter marks its key as known; when the Section is destroyed, keys
// that no getter asked for are reported as unknown. That keeps the list of
// accepted keys in exactly one place: the code that reads them.

#ifndef VANON_SRC_CONFIG_SECTION_H_
#define VANON_SRC_CONFIG_SECTION_H_

#include <cstdint>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "diagnostics.h"

namespace vanon::config::internal {

class Section {
 public:
  // An undefined or null `node` reads as an empty mapping, so an absent
  // section yields its defaults. Any other non-mapping is reported.
  Section(Diagnostics* diag, const YAML::Node& node, std::string path);
  ~Section();

  Section(const Section&) = delete;
  Section& operator=(const Section&) = delete;

  Diagnostics* diag() const { return diag_; }
  const std::string& path() const { return path_; }
  std::string PathOf(const char* key) const { return ChildPath(path_, key); }
  bool Has(const char* key) const;
  void Error(const char* key, const std::string& message);
  // For a key that must not be set in this context: if present, marks it
  // known, reports `message` and returns true.
  bool Unexpected(const char* key, const std::string& message);

  // Each getter returns true when the key is present and valid (and then
  // writes *out); a missing key is an error only when `required`.
  bool String(const char* key, std::string* out, bool required = false);
  bool Int(const char* key, int64_t* out, int64_t lo, int64_t hi, bool required = false);
  bool Int(const char* key, int* out, int lo, int hi, bool required = false);
  // [lo, hi], or (lo, hi] when `lo_open`.
  bool Double(const char* key, double* out, double lo, double hi, bool lo_open = false, bool required = false);
  bool Bool(const char* key, bool* out);
  bool StringMap(const char* key, std::map<std::string, std::string>* out);
  bool StringList(const char* key, std::vector<std::string>* out);
  // A string of non-empty dot-separated parts, e.g. "payload.artist".
  bool DottedPath(const char* key, std::string* out, bool required = false);
  // A string naming an existing regular file, made absolute.
  bool File(const char* key, std::string* out, bool required = false);

  template <typename E>
  bool Enum(const char* key, E* out, std::initializer_list<std::pair<const char*, E>> names, bool required = false) {
    std::string s;
    if (!String(key, &s, required)) return false;
    std::string allowed;
    for (const auto& [name, value] : names) {
      if (s == name) {
        *out = value;
        return true;
      }
      allowed += allowed.empty() ? "" : ", ";
      allowed += name;
    }
    Error(key, "must be one of " + allowed + " (got \"" + s + "\")");
    return false;
  }

  // A sub-mapping (or an empty one when absent or invalid).
  YAML::Node Child(const char* key);
  // The items of a sequence; item i has path PathOf(key) + "[i]".
  std::vector<YAML::Node> List(const char* key, bool required = false);

 private:
  // The value for `key` (marking it known), or an undefined node.
  YAML::Node Get(const char* key);
  bool Scalar(const char* key, const YAML::Node& v, const char* what);

  Diagnostics* diag_;
  std::string path_;
  std::vector<std::pair<std::string, YAML::Node>> entries_;
  std::map<std::string, YAML::Mark> key_marks_;
  std::set<std::string> known_;
};

}  // namespace vanon::config::internal

#endif  // VANON_SRC_CONFIG_SECTION_H_
