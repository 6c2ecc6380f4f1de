#include "overrides.h"

#include <charconv>

namespace vanon::config::internal {

namespace {

bool ParseIndex(const std::string& s, size_t* index) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *index);
  return ec == std::errc() && end == s.data() + s.size();
}

// librdkafka property names contain dots ("sasl.username"), so below these
// maps the rest of an override key is one key, not a path.
bool IsPropertyMap(const std::string& path) {
  return path == "kafka.properties" || path == "kafka.consumer_properties" || path == "kafka.producer_properties";
}

// Walks `keys` from `node`, creating mappings on the way, and stores `value`
// at the end. Nodes are passed by value: a yaml-cpp Node is a handle, and
// re-assigning a handle would rebind it instead of writing through it.
bool SetAt(YAML::Node node, const std::vector<std::string>& keys, size_t i, const YAML::Node& value, std::string* path,
           std::string* why) {
  const std::string& key = keys[i];
  const bool last = i + 1 == keys.size();
  if (node.IsSequence()) {
    size_t index = 0;
    if (!ParseIndex(key, &index) || index >= node.size()) {
      *why = "no item \"" + key + "\" in a list of " + std::to_string(node.size());
      return false;
    }
    *path = ItemPath(*path, index);
    if (last) {
      node[index] = value;
      return true;
    }
    return SetAt(node[index], keys, i + 1, value, path, why);
  }
  if (!node.IsMap()) {
    *why = "cannot set \"" + key + "\" inside a scalar value";
    return false;
  }
  *path = ChildPath(*path, key);
  if (last) {
    node[key] = value;
    return true;
  }
  if (IsPropertyMap(*path) && (!node[key].IsDefined() || node[key].IsNull() || node[key].IsMap())) {
    std::string rest = keys[i + 1];
    for (size_t j = i + 2; j < keys.size(); ++j) rest += "." + keys[j];
    if (!node[key].IsMap()) node[key] = YAML::Node(YAML::NodeType::Map);
    YAML::Node properties = node[key];
    properties[rest] = value;
    *path = ChildPath(*path, rest);
    return true;
  }
  if (!node[key].IsDefined() || node[key].IsNull()) {
    node[key] = YAML::Node(YAML::NodeType::Map);
  }
  return SetAt(node[key], keys, i + 1, value, path, why);
}

std::vector<std::string> SplitKey(const std::string& key) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = key.find('.', start);
    parts.push_back(key.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

}  // namespace

void ApplyOverrides(const std::vector<std::string>& overrides, YAML::Node root, Diagnostics* diag) {
  for (size_t n = 0; n < overrides.size(); ++n) {
    const int index = static_cast<int>(n) + 1;
    const std::string& arg = overrides[n];
    size_t eq = arg.find('=');
    std::string key = arg.substr(0, eq);
    std::vector<std::string> keys = SplitKey(key);
    bool empty_part = false;
    for (const std::string& k : keys) empty_part |= k.empty();
    if (eq == std::string::npos || empty_part) {
      diag->OverrideError(index, key.empty() ? "(override)" : key, "expected dotted.key=value, got \"" + arg + "\"");
      continue;
    }
    YAML::Node value;
    try {
      value = YAML::Load(arg.substr(eq + 1));
    } catch (const YAML::Exception& e) {
      diag->OverrideError(index, key, "bad YAML value: " + e.msg);
      continue;
    }
    std::string path, why;
    if (!SetAt(root, keys, 0, value, &path, &why)) {
      diag->OverrideError(index, key, why);
      continue;
    }
    diag->RecordOverride(path, index);
  }
}

}  // namespace vanon::config::internal
