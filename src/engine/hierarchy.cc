#include "vanon/engine/hierarchy.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <stdexcept>
#include <utility>

namespace vanon::engine {

namespace {

[[noreturn]] void Fail(const std::string& source, size_t line, const std::string& what) {
  throw std::runtime_error(source + ":" + std::to_string(line) + ": " + what);
}

std::vector<std::string> SplitRow(const std::string& line) {
  std::vector<std::string> cells;
  size_t start = 0;
  while (true) {
    size_t end = line.find(';', start);
    cells.push_back(line.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return cells;
}

}  // namespace

CategoricalHierarchy CategoricalHierarchy::LoadArxCsv(const std::string& path) {
  std::ifstream in(path);
  if (!in) Fail(path, 0, "cannot open hierarchy file");
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    rows.push_back(line.empty() ? std::vector<std::string>{} : SplitRow(line));
  }
  return FromRows(rows, path);
}

CategoricalHierarchy CategoricalHierarchy::FromRows(const std::vector<std::vector<std::string>>& rows,
                                                    const std::string& source) {
  CategoricalHierarchy h;
  size_t width = 0;
  // Children are looked up by (parent, name): the same label may appear under
  // different parents (e.g. "Other" in two branches).
  std::map<std::pair<int32_t, std::string>, int32_t> child_of;
  std::vector<std::pair<int32_t, size_t>> leaf_rows;  // node, line
  bool any = false;
  for (size_t i = 0; i < rows.size(); ++i) {
    const size_t line = i + 1;
    const auto& row = rows[i];
    if (row.empty()) continue;  // blank lines are allowed (trailing newline)
    if (row.size() < 2) Fail(source, line, "a row needs a leaf and a root column");
    for (const auto& cell : row) {
      if (cell.empty()) Fail(source, line, "empty cell");
    }
    if (!any) {
      width = row.size();
      h.nodes_.push_back(Node{row.back(), -1, 0, 0, 0, 0, {}});
      any = true;
    } else if (row.size() != width) {
      Fail(source, line, "expected " + std::to_string(width) + " columns, found " + std::to_string(row.size()));
    } else if (row.back() != h.nodes_[0].name) {
      Fail(source, line, "root '" + row.back() + "' differs from '" + h.nodes_[0].name + "'");
    }
    int32_t node = 0;
    for (size_t c = row.size() - 1; c-- > 0;) {
      auto key = std::make_pair(node, row[c]);
      auto it = child_of.find(key);
      if (it == child_of.end()) {
        if (c == 0 && h.leaf_by_name_.count(row[0])) {
          Fail(source, line, "leaf '" + row[0] + "' appears twice");
        }
        const int32_t id = static_cast<int32_t>(h.nodes_.size());
        h.nodes_.push_back(Node{row[c], node, h.nodes_[node].depth + 1, 0, 0, 0, {}});
        h.nodes_[node].children.push_back(id);
        it = child_of.emplace(key, id).first;
      } else if (c == 0) {
        Fail(source, line, "leaf '" + row[0] + "' appears twice");
      } else if (h.nodes_[it->second].children.empty()) {
        Fail(source, line, "'" + row[c] + "' is both a leaf and an inner node");
      }
      node = it->second;
      if (c == 0) h.leaf_by_name_.emplace(row[0], node);
    }
  }
  if (!any) Fail(source, rows.size(), "no rows");

  // Depth-first numbering of leaves, children in order of first appearance,
  // so that each node covers a contiguous leaf range.
  std::vector<std::pair<int32_t, bool>> stack{{0, false}};
  while (!stack.empty()) {
    auto [n, done] = stack.back();
    stack.pop_back();
    Node& node = h.nodes_[n];
    if (node.children.empty()) {
      node.leaf_begin = static_cast<int32_t>(h.leaf_node_.size());
      node.leaf_end = node.leaf_begin + 1;
      h.leaf_node_.push_back(n);
      continue;
    }
    if (done) {
      node.leaf_begin = h.nodes_[node.children.front()].leaf_begin;
      node.leaf_end = h.nodes_[node.children.back()].leaf_end;
      for (int32_t c : node.children) node.height = std::max(node.height, h.nodes_[c].height + 1);
      continue;
    }
    stack.push_back({n, true});
    for (auto it = node.children.rbegin(); it != node.children.rend(); ++it) {
      stack.push_back({*it, false});
    }
  }
  // Leaf names map to leaf ids, not node ids.
  for (auto& [name, id] : h.leaf_by_name_) id = h.nodes_[id].leaf_begin;
  return h;
}

std::optional<int32_t> CategoricalHierarchy::LeafId(std::string_view value) const {
  auto it = leaf_by_name_.find(std::string(value));
  if (it == leaf_by_name_.end()) return std::nullopt;
  return it->second;
}

int32_t CategoricalHierarchy::LowestCommonNode(int32_t leaf_a, int32_t leaf_b) const {
  int32_t a = leaf_node_[leaf_a];
  int32_t b = leaf_node_[leaf_b];
  while (nodes_[a].depth > nodes_[b].depth) a = nodes_[a].parent;
  while (nodes_[b].depth > nodes_[a].depth) b = nodes_[b].parent;
  while (a != b) {
    a = nodes_[a].parent;
    b = nodes_[b].parent;
  }
  return a;
}

double CategoricalHierarchy::Loss(int32_t node) const {
  if (LeafCount() <= 1) return 0;
  return static_cast<double>(LeafEnd(node) - LeafBegin(node) - 1) / (LeafCount() - 1);
}

}  // namespace vanon::engine
