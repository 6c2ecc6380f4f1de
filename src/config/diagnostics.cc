#include "diagnostics.h"

#include <algorithm>

#include "vanon/config.h"

namespace vanon::config::internal {

std::string ParentPath(const std::string& path) {
  // Only an item index ("[2]") is stripped: a key of an override may itself
  // end with ']' ("--set 'x].y=1'"), and returning it unchanged made the
  // walk to the root (OverrideIndex) loop forever.
  if (!path.empty() && path.back() == ']') {
    const size_t open = path.rfind('[');
    if (open != std::string::npos) return path.substr(0, open);
  }
  size_t dot = path.rfind('.');
  return dot == std::string::npos ? std::string() : path.substr(0, dot);
}

std::string ChildPath(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string ItemPath(const std::string& parent, size_t index) { return parent + "[" + std::to_string(index) + "]"; }

Diagnostics::Diagnostics(std::string file) : file_(std::move(file)) {
  base_dir_ = std::filesystem::absolute(file_).parent_path();
}

void Diagnostics::RecordMark(const std::string& path, const YAML::Mark& mark) { marks_.emplace(path, mark); }

void Diagnostics::RecordOverride(const std::string& path, int index) { overrides_[path] = index; }

int Diagnostics::OverrideIndex(const std::string& path) const {
  std::string p = path;
  while (true) {
    auto it = overrides_.find(p);
    if (it != overrides_.end()) return it->second;
    if (p.empty()) return 0;
    p = ParentPath(p);
  }
}

int Diagnostics::OverrideUnder(const std::string& prefix) const {
  int found = 0;
  for (const auto& [path, index] : overrides_) {
    if (path.compare(0, prefix.size(), prefix) == 0) {
      found = found == 0 ? index : std::min(found, index);
    }
  }
  return found;
}

std::filesystem::path Diagnostics::Resolve(const std::string& key_path, const std::string& value) const {
  std::filesystem::path p(value);
  if (p.is_relative()) {
    p = (OverrideIndex(key_path) != 0 ? std::filesystem::current_path() : base_dir_) / p;
  }
  return p.lexically_normal();
}

void Diagnostics::Error(const std::string& path, const std::string& message) { ErrorNear(path, path, message); }

void Diagnostics::ErrorNear(const std::string& where, const std::string& path, const std::string& message) {
  if (int index = OverrideIndex(where)) {
    Add(true, index, path, message);
    return;
  }
  // The offending key may be absent (a missing required key): point at the
  // nearest ancestor that is present.
  for (std::string p = where;; p = ParentPath(p)) {
    auto it = marks_.find(p);
    if (it != marks_.end()) {
      if (it->second.line >= 0) {
        Add(false, it->second.line + 1, path, message);
        return;
      }
      // A node created by an override has no position in the file.
      if (int index = OverrideUnder(p)) {
        Add(true, index, path, message);
        return;
      }
    }
    if (p.empty()) break;
  }
  Add(false, 1, path, message);
}

void Diagnostics::Error(const YAML::Mark& mark, const std::string& path, const std::string& message) {
  if (OverrideIndex(path) != 0 || mark.line < 0) {
    Error(path, message);
    return;
  }
  Add(false, mark.line + 1, path, message);
}

void Diagnostics::OverrideError(int index, const std::string& path, const std::string& message) {
  Add(true, index, path, message);
}

namespace {

// Messages quote keys and values from the file, and a YAML scalar may hold
// line breaks: escaped, every problem stays on its one line of what().
std::string OneLine(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

void Diagnostics::Add(bool from_override, int line, const std::string& path, const std::string& message) {
  std::string text = from_override ? "--set" : file_;
  text += ":" + std::to_string(line) + ": " + (path.empty() ? "(root)" : path) + ": " + message;
  errors_.push_back({from_override, line, OneLine(text)});
}

void Diagnostics::ThrowIfAny() {
  if (errors_.empty()) return;
  std::stable_sort(errors_.begin(), errors_.end(), [](const Entry& a, const Entry& b) {
    if (a.from_override != b.from_override) {
      return !a.from_override;
    }
    return a.line < b.line;
  });
  std::string all;
  for (const Entry& e : errors_) {
    if (!all.empty()) all += '\n';
    all += e.text;
  }
  throw ConfigError(all);
}

}  // namespace vanon::config::internal
