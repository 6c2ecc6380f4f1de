// CategoricalHierarchy::LoadArxCsv (an ARX hierarchy CSV). Input: the
// file's bytes.
//
// Invariants: a refused file throws std::runtime_error "<path>:<line>: ...";
// a loaded hierarchy is a tree whose leaves are numbered depth first, every
// node covering the contiguous leaf range of its children (what the engine
// relies on), each leaf found by its name, and lowest common nodes covering
// both leaves.
#include <optional>
#include <stdexcept>
#include <string>

#include "error_format.h"
#include "fuzz_support.h"
#include "fuzz_targets.h"
#include "vanon/engine/hierarchy.h"

namespace vanon::fuzz {

namespace {

void CheckNode(const engine::CategoricalHierarchy& h, int32_t n) {
  const auto& children = h.Children(n);
  Check(h.LeafBegin(n) < h.LeafEnd(n), "a node covers no leaf");
  if (children.empty()) {
    Check(h.LeafEnd(n) == h.LeafBegin(n) + 1 && h.LeafNode(h.LeafBegin(n)) == n && h.NodeHeight(n) == 0,
          "a leaf node is not its own one-leaf range");
    Check(h.LeafId(h.Name(n)) == h.LeafBegin(n), "a leaf is not found by its name");
    return;
  }
  int32_t next = h.LeafBegin(n);
  for (int32_t c : children) {
    Check(c > 0 && c < h.NodeCount() && h.Parent(c) == n && h.Depth(c) == h.Depth(n) + 1,
          "a child does not point back to its parent");
    Check(h.LeafBegin(c) == next && h.NodeHeight(c) < h.NodeHeight(n), "children's leaf ranges are not contiguous");
    next = h.LeafEnd(c);
  }
  Check(next == h.LeafEnd(n), "children do not cover their parent's range");
}

void CheckTree(const engine::CategoricalHierarchy& h) {
  Check(h.LeafCount() >= 1 && h.Parent(h.Root()) == -1 && h.LeafBegin(0) == 0 && h.LeafEnd(0) == h.LeafCount(),
        "the root does not cover every leaf");
  for (int32_t n = 0; n < h.NodeCount(); ++n) CheckNode(h, n);
  const int32_t leaves = h.LeafCount();
  for (int32_t a = 0; a < leaves; a += 1 + leaves / 16) {
    const int32_t b = leaves - 1 - a;
    const int32_t lcn = h.LowestCommonNode(a, b);
    Check(h.LeafBegin(lcn) <= std::min(a, b) && h.LeafEnd(lcn) > std::max(a, b),
          "the lowest common node does not cover both leaves");
    const double loss = h.Loss(lcn);
    Check(loss >= 0 && loss <= 1, "loss outside [0, 1]");
  }
}

}  // namespace

void FuzzHierarchy(std::string_view input) {
  static const std::string path = ScratchDir() + "/hierarchy.csv";
  WriteFile(path, input);
  std::optional<engine::CategoricalHierarchy> h;
  try {
    h = engine::CategoricalHierarchy::LoadArxCsv(path);
  } catch (const std::runtime_error& e) {
    CheckErrorLine(e.what(), path, LineCount(input));
    return;
  }
  CheckTree(*h);
}

}  // namespace vanon::fuzz
