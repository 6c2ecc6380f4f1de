#include "partitioner.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace vanon {

namespace {

// Histogram of dense sensitive ids over a range, reset in time proportional
// to the values touched rather than the domain.
class ValueCounter {
 public:
  explicit ValueCounter(size_t domain) : count_(domain, 0) {}

  void Add(uint32_t v) {
    if (count_[v]++ == 0) touched_.push_back(v);
    max_ = std::max(max_, count_[v]);
  }
  void Clear() {
    for (uint32_t v : touched_) count_[v] = 0;
    touched_.clear();
    max_ = 0;
  }
  uint32_t max() const { return max_; }
  uint32_t distinct() const { return static_cast<uint32_t>(touched_.size()); }
  uint32_t count(uint32_t v) const { return count_[v]; }
  const std::vector<uint32_t>& touched() const { return touched_; }

 private:
  std::vector<uint32_t> count_;
  std::vector<uint32_t> touched_;
  uint32_t max_ = 0;
};

using Iter = std::vector<uint32_t>::iterator;

class Partitioner {
 public:
  Partitioner(const Schema& schema, const WorkSet& work, const GroupingSpec& spec)
      : schema_(schema), work_(work), spec_(spec), counter_(work.values.size()) {}

  std::vector<ItemGroup> Run(std::vector<uint32_t>& items) {
    std::vector<std::pair<size_t, size_t>> stack{{0, items.size()}};
    while (!stack.empty()) {
      auto [b, e] = stack.back();
      stack.pop_back();
      size_t mid = 0;
      if (TrySplit(items.begin() + static_cast<ptrdiff_t>(b),
                   items.begin() + static_cast<ptrdiff_t>(e), &mid)) {
        // Right first so that the left part is cut first: output follows the
        // QI order.
        stack.push_back({b + mid, e});
        stack.push_back({b, b + mid});
      } else {
        Cut(items.begin() + static_cast<ptrdiff_t>(b), items.begin() + static_cast<ptrdiff_t>(e));
      }
    }
    return std::move(groups_);
  }

  // Cost of a partition under the rule; a split is taken when both halves
  // are groupable and (for kSignatureSlots) the counterfeits do not grow.
  bool Groupable(Iter b, Iter e, uint64_t* counterfeits) {
    counter_.Clear();
    for (Iter it = b; it != e; ++it) counter_.Add(work_.sensitive[*it]);
    const uint64_t n = static_cast<uint64_t>(e - b);
    switch (spec_.rule) {
      case GroupingRule::kDistinct:
        return n >= spec_.m && static_cast<uint64_t>(counter_.max()) * spec_.m <= n;
      case GroupingRule::kSignatureSlots:
        *counterfeits = static_cast<uint64_t>(counter_.max()) * spec_.signature_size - n;
        return n > 0;
      case GroupingRule::kAnonymity: {
        if (n < spec_.k || counter_.distinct() < spec_.l) return false;
        if (spec_.t <= 0) return true;
        // Equal-distance EMD against the release distribution, sparse form.
        double sum = 1;
        for (uint32_t v : counter_.touched()) {
          const double p = static_cast<double>(counter_.count(v)) / static_cast<double>(n);
          sum += std::abs(p - spec_.global[v]) - spec_.global[v];
        }
        return sum / 2 <= spec_.t + 1e-12;
      }
    }
    return false;
  }

 private:
  bool TrySplit(Iter b, Iter e, size_t* mid_out) {
    const size_t n = static_cast<size_t>(e - b);
    if (n < 2) return false;
    const size_t dims = work_.dims;
    std::vector<int32_t> lo(dims), hi(dims);
    for (size_t a = 0; a < dims; ++a) lo[a] = hi[a] = work_.Qi(*b, a);
    for (Iter it = b; it != e; ++it) {
      const int32_t* q = &work_.qi[*it * dims];
      for (size_t a = 0; a < dims; ++a) {
        lo[a] = std::min(lo[a], q[a]);
        hi[a] = std::max(hi[a], q[a]);
      }
    }
    // Try the attribute whose generalization costs most first (Mondrian's
    // widest normalized range, measured in NCP so hierarchies count).
    std::vector<std::pair<double, size_t>> order;
    for (size_t a = 0; a < dims; ++a) {
      const Cover whole = schema_.Generalize(a, lo[a], hi[a]);
      if (whole == schema_.Generalize(a, lo[a], lo[a])) continue;  // cannot shrink
      order.push_back({-schema_.Loss(a, whole), a});
    }
    std::sort(order.begin(), order.end());
    uint64_t parent_cf = 0;
    if (spec_.rule == GroupingRule::kSignatureSlots) Groupable(b, e, &parent_cf);
    for (const auto& [neg_loss, a] : order) {
      int32_t threshold = 0;
      if (!Threshold(b, e, a, lo[a], hi[a], &threshold)) continue;
      Iter mid = std::partition(b, e, [&](uint32_t item) { return work_.Qi(item, a) <= threshold; });
      if (mid == b || mid == e) continue;
      uint64_t left_cf = 0, right_cf = 0;
      if (!Groupable(b, mid, &left_cf) || !Groupable(mid, e, &right_cf)) continue;
      if (spec_.rule == GroupingRule::kSignatureSlots && left_cf + right_cf > parent_cf) continue;
      *mid_out = static_cast<size_t>(mid - b);
      return true;
    }
    return false;
  }

  // Left part = codes <= threshold. Picks the median, moved to a boundary
  // that actually shrinks the published cover (hierarchy child, fixed bin).
  bool Threshold(Iter b, Iter e, size_t a, int32_t lo, int32_t hi, int32_t* out) {
    Iter m = b + (e - b) / 2;
    std::nth_element(b, m, e, [&](uint32_t x, uint32_t y) { return work_.Qi(x, a) < work_.Qi(y, a); });
    const int32_t median = work_.Qi(*m, a);
    const QiAttribute& attr = schema_.attribute(a);
    if (attr.IsCategorical()) {
      const CategoricalHierarchy& h = *attr.hierarchy;
      const int32_t node = h.LowestCommonNode(lo, hi);
      int32_t child_begin = lo, child_end = hi + 1;
      for (int32_t c : h.Children(node)) {
        if (h.LeafBegin(c) <= median && median < h.LeafEnd(c)) {
          child_begin = h.LeafBegin(c);
          child_end = h.LeafEnd(c);
        }
      }
      // Candidates: cut just before or just after the median's child subtree.
      const int32_t before = child_begin - 1, after = child_end - 1;
      const bool can_before = before >= lo, can_after = after < hi;
      if (!can_before && !can_after) return false;
      if (can_before != can_after) {
        *out = can_before ? before : after;
        return true;
      }
      size_t n_before = 0, n_after = 0;
      for (Iter it = b; it != e; ++it) {
        const int32_t v = work_.Qi(*it, a);
        n_before += v <= before;
        n_after += v <= after;
      }
      const double half = static_cast<double>(e - b) / 2;
      *out = std::abs(static_cast<double>(n_before) - half) <= std::abs(static_cast<double>(n_after) - half)
                 ? before : after;
      return true;
    }
    const NumericDomain& d = attr.numeric;
    int32_t t = median == hi ? median - 1 : median;
    if (d.bin_width > 0) {
      const Cover bin = schema_.Generalize(a, t, t);
      t = bin.hi < hi ? bin.hi : bin.lo - 1;
    }
    if (t < lo || t >= hi) return false;
    *out = t;
    return true;
  }

  void Cut(Iter b, Iter e) {
    std::vector<uint32_t> items(b, e);
    // Sorted by value, then QI, so that dealing round-robin gives every group
    // at most one tuple per value.
    std::sort(items.begin(), items.end(), [&](uint32_t x, uint32_t y) {
      if (work_.sensitive[x] != work_.sensitive[y]) return work_.sensitive[x] < work_.sensitive[y];
      return x < y;
    });
    size_t groups = 1;
    if (spec_.rule == GroupingRule::kDistinct) {
      groups = items.size() / spec_.m;
    } else if (spec_.rule == GroupingRule::kSignatureSlots) {
      uint64_t unused = 0;
      Groupable(b, e, &unused);
      groups = counter_.max();
    }
    const size_t first = groups_.size();
    groups_.resize(first + groups);
    if (spec_.rule == GroupingRule::kSignatureSlots) {
      // The i-th tuple of each value goes to group i: counterfeits collect in
      // the last groups, where the fewest real tuples are.
      size_t run = 0;
      for (size_t i = 0; i < items.size(); ++i) {
        if (i > 0 && work_.sensitive[items[i]] != work_.sensitive[items[i - 1]]) run = 0;
        groups_[first + run++].items.push_back(items[i]);
      }
    } else {
      for (size_t i = 0; i < items.size(); ++i) groups_[first + i % groups].items.push_back(items[i]);
    }
  }

  const Schema& schema_;
  const WorkSet& work_;
  const GroupingSpec& spec_;
  ValueCounter counter_;
  std::vector<ItemGroup> groups_;
};

}  // namespace

bool CanGroup(const WorkSet& work, const std::vector<uint32_t>& items, const GroupingSpec& spec) {
  if (items.empty()) return false;
  Schema unused;
  Partitioner p(unused, work, spec);
  std::vector<uint32_t> copy = items;
  uint64_t cf = 0;
  return p.Groupable(copy.begin(), copy.end(), &cf);
}

std::vector<ItemGroup> PartitionIntoGroups(const Schema& schema, const WorkSet& work,
                                           std::vector<uint32_t>& items,
                                           const GroupingSpec& spec) {
  if (items.empty()) return {};
  Partitioner p(schema, work, spec);
  return p.Run(items);
}

}  // namespace vanon
