#include "vanon/vehicle/vehicle_registry.h"

#include <fstream>
#include <stdexcept>

namespace vanon::fleet {

namespace {

[[noreturn]] void Fail(const std::string& path, int line, const std::string& what) {
  throw std::runtime_error(path + ":" + std::to_string(line) + ": " + what);
}

// Splits one CSV record starting at `line`; a quoted field may span lines,
// so more lines are pulled from `in` (and `line_no` advanced) as needed.
std::vector<std::string> ReadRecord(std::string line, std::istream& in, int& line_no, const std::string& path) {
  const int first_line = line_no;
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  size_t i = 0;
  for (;;) {
    if (i == line.size()) {
      if (!quoted) break;
      std::string next;
      if (!std::getline(in, next)) Fail(path, first_line, "unterminated quoted field");
      ++line_no;
      if (!next.empty() && next.back() == '\r') next.pop_back();
      field += '\n';
      line = std::move(next);
      i = 0;
      continue;
    }
    const char c = line[i++];
    if (quoted) {
      if (c != '"') {
        field += c;
      } else if (i < line.size() && line[i] == '"') {
        field += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"' && field.empty()) {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else {
      field += c;
    }
  }
  fields.push_back(std::move(field));
  return fields;
}

}  // namespace

VehicleRegistry VehicleRegistry::LoadCsv(const std::string& path, const std::string& key_column) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail(path, 0, "cannot open file");
  VehicleRegistry registry;
  std::string line;
  int line_no = 0;
  size_t key_index = 0;
  size_t columns = 0;
  bool have_header = false;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const int record_line = line_no;
    std::vector<std::string> fields = ReadRecord(line, in, line_no, path);
    if (!have_header) {
      have_header = true;
      columns = fields.size();
      bool found = false;
      for (size_t c = 0; c < fields.size(); ++c) {
        if (fields[c].empty()) Fail(path, record_line, "empty column name in header");
        if (fields[c] == key_column) {
          if (found) Fail(path, record_line, "key column '" + key_column + "' appears twice");
          found = true;
          key_index = c;
        } else {
          registry.names_.push_back(fields[c]);
        }
      }
      if (!found) Fail(path, record_line, "header has no key column '" + key_column + "'");
      continue;
    }
    if (fields.size() != columns) {
      Fail(path, record_line,
           "expected " + std::to_string(columns) + " fields, found " + std::to_string(fields.size()));
    }
    std::string key = std::move(fields[key_index]);
    if (key.empty()) Fail(path, record_line, "empty key");
    std::vector<std::string> values;
    values.reserve(columns - 1);
    for (size_t c = 0; c < fields.size(); ++c) {
      if (c != key_index) values.push_back(std::move(fields[c]));
    }
    // The key is not echoed: it is usually a VIN and errors end up in logs.
    if (!registry.rows_.emplace(std::move(key), std::move(values)).second) {
      Fail(path, record_line, "duplicate key");
    }
  }
  if (!have_header) Fail(path, line_no, "empty file: a header row is required");
  return registry;
}

DecodedVehicle VehicleRegistry::Lookup(std::string_view key) const {
  DecodedVehicle out;
  out.attributes.reserve(names_.size());
  auto it = rows_.find(std::string(key));
  out.known = it != rows_.end();
  for (size_t c = 0; c < names_.size(); ++c) {
    out.attributes.emplace_back(names_[c], out.known ? it->second[c] : kUnknownAttribute);
  }
  return out;
}

}  // namespace vanon::fleet
