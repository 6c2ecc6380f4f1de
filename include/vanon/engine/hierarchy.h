// A categorical generalization hierarchy (a tree whose leaves are the raw
// values), loaded from the ARX CSV format: one row per leaf, columns from the
// leaf up to the root, separated by ';'.
//
// Leaves are numbered in depth-first order, so every node covers a contiguous
// range of leaf ids. The engine relies on this: the lowest common node of a set
// of leaves is the lowest common node of the smallest and largest leaf id.
#ifndef VANON_ENGINE_HIERARCHY_H_
#define VANON_ENGINE_HIERARCHY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace vanon::engine {

class CategoricalHierarchy {
 public:
  // Throws std::runtime_error whose message starts with "<path>:<line>: ".
  static CategoricalHierarchy LoadArxCsv(const std::string& path);
  // Same format, already split; `source` names the origin in error messages.
  // rows[i] is the (1-based) line i+1.
  static CategoricalHierarchy FromRows(const std::vector<std::vector<std::string>>& rows, const std::string& source);

  int32_t LeafCount() const { return static_cast<int32_t>(leaf_node_.size()); }
  int32_t NodeCount() const { return static_cast<int32_t>(nodes_.size()); }
  int32_t Root() const { return 0; }
  // Height of the tree (a root-only tree has height 0).
  int32_t Height() const { return nodes_[0].height; }

  std::optional<int32_t> LeafId(std::string_view value) const;
  int32_t LeafNode(int32_t leaf) const { return leaf_node_[leaf]; }

  const std::string& Name(int32_t node) const { return nodes_[node].name; }
  int32_t Parent(int32_t node) const { return nodes_[node].parent; }  // -1 for root
  int32_t Depth(int32_t node) const { return nodes_[node].depth; }
  int32_t NodeHeight(int32_t node) const { return nodes_[node].height; }
  // Leaves under `node` are [LeafBegin, LeafEnd).
  int32_t LeafBegin(int32_t node) const { return nodes_[node].leaf_begin; }
  int32_t LeafEnd(int32_t node) const { return nodes_[node].leaf_end; }
  const std::vector<int32_t>& Children(int32_t node) const { return nodes_[node].children; }

  // Lowest node whose leaf range contains both leaves.
  int32_t LowestCommonNode(int32_t leaf_a, int32_t leaf_b) const;
  // Iyengar's loss of publishing `node`: (leaves under node - 1) / (leaves - 1).
  double Loss(int32_t node) const;

 private:
  struct Node {
    std::string name;
    int32_t parent = -1;
    int32_t depth = 0;
    int32_t height = 0;
    int32_t leaf_begin = 0;
    int32_t leaf_end = 0;
    std::vector<int32_t> children;
  };
  std::vector<Node> nodes_;
  std::vector<int32_t> leaf_node_;
  std::unordered_map<std::string, int32_t> leaf_by_name_;
};

}  // namespace vanon::engine

#endif  // VANON_ENGINE_HIERARCHY_H_
