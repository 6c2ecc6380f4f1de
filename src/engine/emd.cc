// Earth mover's distances of t-closeness (Li, Li, Venkatasubramanian 2007),
// in the three ground-distance forms of seed 000 section 4.2.9.
#include <cmath>
#include <cstdlib>

#include "vanon/engine/hierarchy.h"
#include "vanon/engine/metrics.h"

namespace vanon::engine {

double EmdEqual(const std::vector<double>& p, const std::vector<double>& q) {
  double sum = 0;
  for (size_t i = 0; i < p.size(); ++i) sum += std::abs(p[i] - q[i]);
  return sum / 2;
}

double EmdOrdered(const std::vector<double>& p, const std::vector<double>& q) {
  if (p.size() < 2) return 0;
  // Moving mass one step costs 1/(m-1); the flow across the gap after value i
  // is the running difference of the two cumulative distributions.
  double running = 0;
  double sum = 0;
  for (size_t i = 0; i + 1 < p.size(); ++i) {
    running += p[i] - q[i];
    sum += std::abs(running);
  }
  return sum / static_cast<double>(p.size() - 1);
}

double EmdHierarchical(const CategoricalHierarchy& h, const std::vector<double>& p, const std::vector<double>& q) {
  const int32_t height = h.Height();
  if (height == 0) return 0;
  // extra(N) = net surplus of P over Q under N. Each inner node N settles
  // min(surplus, deficit) among its children at cost height(N)/H; what is
  // left moves up to the parent.
  std::vector<double> extra(h.NodeCount(), 0.0);
  for (int32_t leaf = 0; leaf < h.LeafCount(); ++leaf) extra[h.LeafNode(leaf)] = p[leaf] - q[leaf];
  // Node ids are created parent-before-child, so a reverse sweep is bottom-up.
  double cost = 0;
  for (int32_t n = h.NodeCount() - 1; n >= 0; --n) {
    const auto& children = h.Children(n);
    if (children.empty()) continue;
    double pos = 0, neg = 0;
    for (int32_t c : children) {
      if (extra[c] > 0)
        pos += extra[c];
      else
        neg -= extra[c];
    }
    extra[n] = pos - neg;
    cost += static_cast<double>(h.NodeHeight(n)) / height * std::min(pos, neg);
  }
  return cost;
}

}  // namespace vanon::engine
