#include "section.h"

#include <charconv>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

namespace vanon::config::internal {

namespace {

const char* TypeName(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Null:
      return "null";
    case YAML::NodeType::Scalar:
      return "a scalar";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    default:
      return "nothing";
  }
}

// yaml-cpp tags a quoted scalar "!" and a plain one "?". A quoted "5" is a
// string to YAML, so it is not accepted where a number is expected.
bool IsQuoted(const YAML::Node& n) { return n.Tag() == "!"; }

}  // namespace

Section::Section(Diagnostics* diag, const YAML::Node& node, std::string path) : diag_(diag), path_(std::move(path)) {
  if (!node.IsDefined() || node.IsNull()) return;
  if (!node.IsMap()) {
    diag_->Error(node.Mark(), path_, std::string("expected a mapping, got ") + TypeName(node));
    return;
  }
  for (auto it = node.begin(); it != node.end(); ++it) {
    // Copies: the iterator yields a temporary pair.
    const YAML::Node k = it->first;
    if (!k.IsScalar()) {
      diag_->Error(k.Mark(), path_, "mapping keys must be scalars");
      continue;
    }
    const std::string& key = k.Scalar();
    if (key_marks_.count(key) != 0) {
      diag_->Error(k.Mark(), ChildPath(path_, key), "duplicate key");
      continue;
    }
    key_marks_.emplace(key, k.Mark());
    diag_->RecordMark(ChildPath(path_, key), k.Mark());
    entries_.emplace_back(key, YAML::Node(it->second));
  }
}

Section::~Section() {
  for (const auto& [key, value] : entries_) {
    if (known_.count(key) == 0) {
      diag_->Error(key_marks_[key], ChildPath(path_, key), "unknown key");
    }
  }
}

bool Section::Has(const char* key) const { return key_marks_.count(key) != 0; }

void Section::Error(const char* key, const std::string& message) {
  auto it = key_marks_.find(key);
  if (it != key_marks_.end()) {
    diag_->Error(it->second, PathOf(key), message);
  } else {
    diag_->Error(PathOf(key), message);
  }
}

bool Section::Unexpected(const char* key, const std::string& message) {
  if (!Has(key)) return false;
  known_.insert(key);
  Error(key, message);
  return true;
}

YAML::Node Section::Get(const char* key) {
  known_.insert(key);
  for (const auto& [k, v] : entries_) {
    if (k == key) return v;
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

bool Section::Scalar(const char* key, const YAML::Node& v, const char* what) {
  if (v.IsScalar()) return true;
  Error(key, std::string("expected ") + what + ", got " + TypeName(v));
  return false;
}

bool Section::String(const char* key, std::string* out, bool required) {
  YAML::Node v = Get(key);
  if (!v.IsDefined()) {
    if (required) Error(key, "missing required key");
    return false;
  }
  if (!Scalar(key, v, "a string")) return false;
  if (v.Scalar().empty()) {
    Error(key, "must not be empty");
    return false;
  }
  *out = v.Scalar();
  return true;
}

bool Section::Int(const char* key, int64_t* out, int64_t lo, int64_t hi, bool required) {
  YAML::Node v = Get(key);
  if (!v.IsDefined()) {
    if (required) Error(key, "missing required key");
    return false;
  }
  if (!Scalar(key, v, "an integer")) return false;
  const std::string& s = v.Scalar();
  int64_t value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (IsQuoted(v) || ec == std::errc::invalid_argument || end != s.data() + s.size()) {
    Error(key, "expected an integer, got \"" + s + "\"");
    return false;
  }
  if (ec == std::errc::result_out_of_range || value < lo || value > hi) {
    Error(key, fmt::format("{} is out of range [{}, {}]", s, lo, hi));
    return false;
  }
  *out = value;
  return true;
}

bool Section::Int(const char* key, int* out, int lo, int hi, bool required) {
  int64_t wide = 0;
  if (!Int(key, &wide, lo, hi, required)) return false;
  *out = static_cast<int>(wide);
  return true;
}

bool Section::Double(const char* key, double* out, double lo, double hi, bool lo_open, bool required) {
  YAML::Node v = Get(key);
  if (!v.IsDefined()) {
    if (required) Error(key, "missing required key");
    return false;
  }
  if (!Scalar(key, v, "a number")) return false;
  const std::string& s = v.Scalar();
  double value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (IsQuoted(v) || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(value)) {
    Error(key, "expected a number, got \"" + s + "\"");
    return false;
  }
  if ((lo_open ? value <= lo : value < lo) || value > hi) {
    Error(key, fmt::format("{} is out of range {}{}, {}]", s, lo_open ? "(" : "[", lo, hi));
    return false;
  }
  *out = value;
  return true;
}

bool Section::Bool(const char* key, bool* out) {
  YAML::Node v = Get(key);
  if (!v.IsDefined()) return false;
  if (!Scalar(key, v, "true or false")) return false;
  // Only the YAML 1.2 spellings: "yes"/"on" read as booleans surprise people.
  const std::string& s = v.Scalar();
  if (!IsQuoted(v) && (s == "true" || s == "True" || s == "TRUE")) {
    *out = true;
    return true;
  }
  if (!IsQuoted(v) && (s == "false" || s == "False" || s == "FALSE")) {
    *out = false;
    return true;
  }
  Error(key, "expected true or false, got \"" + s + "\"");
  return false;
}

bool Section::StringMap(const char* key, std::map<std::string, std::string>* out) {
  YAML::Node v = Get(key);
  if (!v.IsDefined() || v.IsNull()) return false;
  if (!v.IsMap()) {
    Error(key, std::string("expected a mapping, got ") + TypeName(v));
    return false;
  }
  bool ok = true;
  const std::string parent = PathOf(key);
  for (auto it = v.begin(); it != v.end(); ++it) {
    const YAML::Node k = it->first;
    const YAML::Node value = it->second;
    if (!k.IsScalar() || k.Scalar().empty()) {
      diag_->Error(k.Mark(), parent, "keys must be non-empty strings");
      ok = false;
      continue;
    }
    const std::string path = ChildPath(parent, k.Scalar());
    if (!value.IsScalar()) {
      diag_->Error(k.Mark(), path, std::string("expected a string, got ") + TypeName(value));
      ok = false;
    } else if (!out->emplace(k.Scalar(), value.Scalar()).second) {
      diag_->Error(k.Mark(), path, "duplicate key");
      ok = false;
    } else {
      diag_->RecordMark(path, k.Mark());
    }
  }
  return ok;
}

bool Section::StringList(const char* key, std::vector<std::string>* out) {
  YAML::Node v = Get(key);
  if (!v.IsDefined() || v.IsNull()) return false;
  if (!v.IsSequence()) {
    Error(key, std::string("expected a list, got ") + TypeName(v));
    return false;
  }
  bool ok = true;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string path = ItemPath(PathOf(key), i);
    diag_->RecordMark(path, v[i].Mark());
    if (!v[i].IsScalar() || v[i].Scalar().empty()) {
      diag_->Error(v[i].Mark(), path, "expected a non-empty string");
      ok = false;
    } else {
      out->push_back(v[i].Scalar());
    }
  }
  return ok;
}

bool Section::DottedPath(const char* key, std::string* out, bool required) {
  std::string value;
  if (!String(key, &value, required)) return false;
  if (value.front() == '.' || value.back() == '.' || value.find("..") != std::string::npos) {
    Error(key, "\"" + value + "\" is not a dotted path (empty part)");
    return false;
  }
  *out = value;
  return true;
}

bool Section::File(const char* key, std::string* out, bool required) {
  std::string value;
  if (!String(key, &value, required)) return false;
  std::filesystem::path p = diag_->Resolve(PathOf(key), value);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(p, ec)) {
    Error(key, "file not found: " + p.string());
    return false;
  }
  *out = p.string();
  return true;
}

YAML::Node Section::Child(const char* key) {
  YAML::Node v = Get(key);
  if (v.IsDefined() && !v.IsNull() && !v.IsMap()) {
    Error(key, std::string("expected a mapping, got ") + TypeName(v));
    return YAML::Node(YAML::NodeType::Undefined);
  }
  return v;
}

std::vector<YAML::Node> Section::List(const char* key, bool required) {
  YAML::Node v = Get(key);
  std::vector<YAML::Node> items;
  if (!v.IsDefined() || v.IsNull()) {
    if (required) Error(key, "missing required key");
    return items;
  }
  if (!v.IsSequence()) {
    Error(key, std::string("expected a list, got ") + TypeName(v));
    return items;
  }
  for (size_t i = 0; i < v.size(); ++i) {
    diag_->RecordMark(ItemPath(PathOf(key), i), v[i].Mark());
    items.push_back(v[i]);
  }
  return items;
}

}  // namespace vanon::config::internal
