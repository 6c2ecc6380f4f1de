#include "partitioner.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <utility>

#include "distinct_cut.h"

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
    // Both halves must hold a group: no need to look for a cut otherwise.
    if (spec_.rule == GroupingRule::kDistinct && n < 2 * static_cast<size_t>(spec_.m)) return false;
    if (spec_.rule == GroupingRule::kAnonymity && n < 2 * static_cast<size_t>(spec_.k)) return false;
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
    // No median cut is acceptable (typically: the sensitive values correlate
    // with the QI, so one half gets too many of one value). Look for the most
    // balanced acceptable cut anywhere along each attribute instead.
    for (const auto& [neg_loss, a] : order) {
      if (ScanSplit(b, e, a, parent_cf, mid_out)) return true;
    }
    return false;
  }

  // Sorts the range by attribute `a` and tries every cut between distinct
  // codes, keeping running value counts of both sides: O(n log n + cuts * V).
  bool ScanSplit(Iter b, Iter e, size_t a, uint64_t parent_cf, size_t* mid_out) {
    std::sort(b, e, [&](uint32_t x, uint32_t y) {
      const int32_t qx = work_.Qi(x, a), qy = work_.Qi(y, a);
      return qx != qy ? qx < qy : x < y;
    });
    counter_.Clear();
    for (Iter it = b; it != e; ++it) counter_.Add(work_.sensitive[*it]);
    const std::vector<uint32_t> present = counter_.touched();
    std::vector<uint32_t> right(present.size()), left(present.size(), 0);
    std::vector<uint32_t> slot(work_.values.size(), 0);
    for (size_t i = 0; i < present.size(); ++i) {
      slot[present[i]] = static_cast<uint32_t>(i);
      right[i] = counter_.count(present[i]);
    }
    const size_t n = static_cast<size_t>(e - b);
    size_t best = 0;
    double best_gap = 0;
    for (size_t i = 0; i + 1 < n; ++i) {
      const uint32_t s = slot[work_.sensitive[b[static_cast<ptrdiff_t>(i)]]];
      ++left[s];
      --right[s];
      if (work_.Qi(b[static_cast<ptrdiff_t>(i)], a) == work_.Qi(b[static_cast<ptrdiff_t>(i + 1)], a)) continue;
      const size_t nl = i + 1, nr = n - nl;
      const double gap = std::abs(static_cast<double>(nl) - static_cast<double>(n) / 2);
      if (best != 0 && gap >= best_gap) continue;
      if (!Acceptable(present, left, nl, right, nr, parent_cf)) continue;
      best = nl;
      best_gap = gap;
    }
    if (best == 0) return false;
    *mid_out = best;
    return true;
  }

  bool Acceptable(const std::vector<uint32_t>& present, const std::vector<uint32_t>& left, size_t nl,
                  const std::vector<uint32_t>& right, size_t nr, uint64_t parent_cf) const {
    uint32_t max_l = 0, max_r = 0, distinct_l = 0, distinct_r = 0;
    for (size_t i = 0; i < present.size(); ++i) {
      max_l = std::max(max_l, left[i]);
      max_r = std::max(max_r, right[i]);
      distinct_l += left[i] > 0;
      distinct_r += right[i] > 0;
    }
    switch (spec_.rule) {
      case GroupingRule::kDistinct:
        return nl >= spec_.m && nr >= spec_.m && static_cast<uint64_t>(max_l) * spec_.m <= nl &&
               static_cast<uint64_t>(max_r) * spec_.m <= nr;
      case GroupingRule::kSignatureSlots:
        return static_cast<uint64_t>(max_l) * spec_.signature_size - nl +
                   static_cast<uint64_t>(max_r) * spec_.signature_size - nr <= parent_cf;
      case GroupingRule::kAnonymity: {
        if (nl < spec_.k || nr < spec_.k || distinct_l < spec_.l || distinct_r < spec_.l) return false;
        if (spec_.t <= 0) return true;
        double sum_l = 1, sum_r = 1;
        for (size_t i = 0; i < present.size(); ++i) {
          const double q = spec_.global[present[i]];
          if (left[i]) sum_l += std::abs(static_cast<double>(left[i]) / static_cast<double>(nl) - q) - q;
          if (right[i]) sum_r += std::abs(static_cast<double>(right[i]) / static_cast<double>(nr) - q) - q;
        }
        return sum_l / 2 <= spec_.t + 1e-12 && sum_r / 2 <= spec_.t + 1e-12;
      }
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
    if (spec_.rule == GroupingRule::kAnonymity) {
      groups_.push_back(ItemGroup{std::move(items)});
      return;
    }
    if (spec_.rule == GroupingRule::kDistinct) {
      for (auto& g : CutDistinct(schema_, work_, std::move(items), spec_.m)) {
        groups_.push_back(ItemGroup{std::move(g)});
      }
      return;
    }
    // kSignatureSlots: the i-th tuple of each value goes to group i, so every
    // group holds at most one tuple per value and the counterfeits collect in
    // the last groups, where the fewest real tuples are.
    std::stable_sort(items.begin(), items.end(), [&](uint32_t x, uint32_t y) {
      return work_.sensitive[x] < work_.sensitive[y];
    });
    uint64_t unused = 0;
    Groupable(b, e, &unused);
    const size_t first = groups_.size();
    groups_.resize(first + counter_.max());
    size_t run = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      if (i > 0 && work_.sensitive[items[i]] != work_.sensitive[items[i - 1]]) run = 0;
      groups_[first + run++].items.push_back(items[i]);
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
