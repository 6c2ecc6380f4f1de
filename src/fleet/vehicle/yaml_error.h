// Error helpers shared by the YAML readers of the fleet area: every message
// starts with "<source>:<line>: " so an operator can jump to the entry.
#ifndef VANON_SRC_FLEET_VEHICLE_YAML_ERROR_H_
#define VANON_SRC_FLEET_VEHICLE_YAML_ERROR_H_

#include <yaml-cpp/yaml.h>

#include <stdexcept>
#include <string>

namespace vanon::fleet::yaml_util {

[[noreturn]] inline void Fail(const std::string& source, int line, const std::string& what) {
  throw std::runtime_error(source + ":" + std::to_string(line) + ": " + what);
}

// 1-based line of a node (yaml-cpp counts from 0).
inline int LineOf(const YAML::Node& node) { return node.Mark().line + 1; }

// The child `key` of map `node`, which must exist.
inline YAML::Node Require(const YAML::Node& node, const char* key, const std::string& source) {
  YAML::Node child = node[key];
  if (!child) Fail(source, LineOf(node), std::string("missing key '") + key + "'");
  return child;
}

inline std::string RequireString(const YAML::Node& node, const char* key, const std::string& source) {
  YAML::Node child = Require(node, key, source);
  if (!child.IsScalar() || child.Scalar().empty()) {
    Fail(source, LineOf(child), std::string("'") + key + "' must be a non-empty string");
  }
  return child.Scalar();
}

inline long long ToInt(const YAML::Node& node, const char* what, const std::string& source) {
  long long value = 0;
  if (!node.IsScalar() || !YAML::convert<long long>::decode(node, value)) {
    Fail(source, LineOf(node), std::string("'") + what + "' must be an integer");
  }
  return value;
}

inline double ToDouble(const YAML::Node& node, const char* what, const std::string& source) {
  double value = 0;
  if (!node.IsScalar() || !YAML::convert<double>::decode(node, value)) {
    Fail(source, LineOf(node), std::string("'") + what + "' must be a number");
  }
  return value;
}

// Parses text, turning yaml-cpp syntax errors into "<source>:<line>: ...".
inline YAML::Node ParseText(const std::string& text, const std::string& source) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    Fail(source, e.mark.line + 1, e.msg);
  }
}

// Whole file as text; "<path>:0: cannot open" when unreadable.
std::string ReadFile(const std::string& path);

}  // namespace vanon::fleet::yaml_util

#endif  // VANON_SRC_FLEET_VEHICLE_YAML_ERROR_H_
