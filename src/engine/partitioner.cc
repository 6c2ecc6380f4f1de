#include "partitioner.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <memory>
#include <utility>

#include "distinct_cut.h"

namespace vanon {

namespace {

// Whether counts of one side satisfy the rule; `count(i)` is the count of
// values[i]. Shared by CanGroup and the split checks.
template <typename CountFn>
bool SideGroupable(const GroupingSpec& spec, const std::vector<uint32_t>& values, CountFn count,
                   uint64_t n, uint64_t* counterfeits) {
  uint32_t max = 0, distinct = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const uint32_t c = count(i);
    max = std::max(max, c);
    distinct += c > 0;
  }
  switch (spec.rule) {
    case GroupingRule::kDistinct:
      return n >= spec.m && static_cast<uint64_t>(max) * spec.m <= n;
    case GroupingRule::kSignatureSlots:
      *counterfeits = static_cast<uint64_t>(max) * spec.signature_size - n;
      return n > 0;
    case GroupingRule::kAnonymity: {
      if (n < spec.k || distinct < spec.l) return false;
      if (spec.t <= 0) return true;
      // Equal-distance EMD against the release distribution, sparse form:
      // sum |p - q| = sum over present values (|p - q| - q) + sum of all q.
      double sum = 1;
      for (size_t i = 0; i < values.size(); ++i) {
        const uint32_t c = count(i);
        if (c == 0) continue;
        const double q = spec.global[values[i]];
        sum += std::abs(static_cast<double>(c) / static_cast<double>(n) - q) - q;
      }
      return sum / 2 <= spec.t + 1e-12;
    }
  }
  return false;
}

// The partitioner works on its own copy of the items' QI rows, moved along
// with the items: each level of the recursion then reads its range of rows
// sequentially. Indexing the shared work set through the item ids instead
// (as an earlier version did) made every pass over a large partition a
// cache miss per item, because earlier splits scatter the ids.
//
// Row layout: dims QI codes, then the dense sensitive id, then the item id.
//
// The sets of items in each final partition do not depend on the order of
// rows within a range (medians, counts and the sorted scan are order-free),
// and each final partition is handed to the cut in item order, so the output
// does not depend on how the rows were moved.
class Partitioner {
 public:
  Partitioner(const Schema& schema, const WorkSet& work, const GroupingSpec& spec)
      : schema_(schema),
        work_(work),
        spec_(spec),
        dims_(work.dims),
        width_(work.dims + 2),
        count_(work.values.size(), 0),
        left_(work.values.size(), 0),
        lo_(work.dims),
        hi_(work.dims),
        tmp_row_(work.dims + 2) {}

  std::vector<ItemGroup> Run(const std::vector<uint32_t>& items) {
    // Uninitialized: every word is written below.
    rows_.reset(new int32_t[items.size() * width_]);
    for (size_t i = 0; i < items.size(); ++i) {
      int32_t* row = Row(i);
      const int32_t* q = &work_.qi[static_cast<size_t>(items[i]) * dims_];
      std::copy(q, q + dims_, row);
      row[dims_] = static_cast<int32_t>(work_.sensitive[items[i]]);
      row[dims_ + 1] = static_cast<int32_t>(items[i]);
    }
    // Every group holds at least m (k) items: reserve the most groups there
    // can be rather than grow by doubling.
    if (spec_.rule == GroupingRule::kDistinct) groups_.reserve(items.size() / std::max<uint32_t>(spec_.m, 1));
    if (spec_.rule == GroupingRule::kAnonymity) groups_.reserve(items.size() / std::max<uint32_t>(spec_.k, 1));
    std::vector<std::pair<size_t, size_t>> stack{{0, items.size()}};
    while (!stack.empty()) {
      auto [b, e] = stack.back();
      stack.pop_back();
      size_t mid = 0;
      if (TrySplit(b, e, &mid)) {
        // Right first so that the left part is cut first: output follows the
        // QI order.
        stack.push_back({mid, e});
        stack.push_back({b, mid});
      } else {
        Cut(b, e);
      }
    }
    return std::move(groups_);
  }

 private:
  int32_t* Row(size_t i) { return &rows_[i * width_]; }
  int32_t Qi(size_t i, size_t a) const { return rows_[i * width_ + a]; }
  uint32_t Value(size_t i) const { return static_cast<uint32_t>(rows_[i * width_ + dims_]); }
  uint32_t Item(size_t i) const { return static_cast<uint32_t>(rows_[i * width_ + dims_ + 1]); }

  void SwapRows(size_t i, size_t j) { std::swap_ranges(Row(i), Row(i) + width_, Row(j)); }

  // Value counts of rows [b, e) into count_, the values present (ascending)
  // into present_.
  void CountRange(size_t b, size_t e) {
    for (uint32_t v : present_) count_[v] = 0;
    present_.clear();
    for (size_t i = b; i < e; ++i) {
      const uint32_t v = Value(i);
      if (count_[v]++ == 0) present_.push_back(v);
    }
    std::sort(present_.begin(), present_.end());
  }

  void ClearLeft() {
    for (uint32_t v : present_) left_[v] = 0;
  }

  // Both sides of a cut with nl rows (counts in left_) and nr rows (counts
  // count_ - left_) are groupable and, for kSignatureSlots, need no more
  // counterfeits than the parent.
  bool Acceptable(uint64_t nl, uint64_t nr, uint64_t parent_cf) const {
    uint64_t cf_l = 0, cf_r = 0;
    if (!SideGroupable(spec_, present_, [&](size_t i) { return left_[present_[i]]; }, nl, &cf_l)) {
      return false;
    }
    if (!SideGroupable(spec_, present_, [&](size_t i) { return count_[present_[i]] - left_[present_[i]]; },
                       nr, &cf_r)) {
      return false;
    }
    return spec_.rule != GroupingRule::kSignatureSlots || cf_l + cf_r <= parent_cf;
  }

  bool TrySplit(size_t b, size_t e, size_t* mid_out) {
    const size_t n = e - b;
    if (n < 2) return false;
    // Both halves must hold a group: no need to look for a cut otherwise.
    if (spec_.rule == GroupingRule::kDistinct && n < 2 * static_cast<size_t>(spec_.m)) return false;
    if (spec_.rule == GroupingRule::kAnonymity && n < 2 * static_cast<size_t>(spec_.k)) return false;
    // One pass for the bounds and the value counts of the range.
    for (uint32_t v : present_) count_[v] = 0;
    present_.clear();
    for (size_t a = 0; a < dims_; ++a) lo_[a] = hi_[a] = Qi(b, a);
    for (size_t i = b; i < e; ++i) {
      const int32_t* q = Row(i);
      for (size_t a = 0; a < dims_; ++a) {
        lo_[a] = std::min(lo_[a], q[a]);
        hi_[a] = std::max(hi_[a], q[a]);
      }
      const uint32_t v = static_cast<uint32_t>(q[dims_]);
      if (count_[v]++ == 0) present_.push_back(v);
    }
    std::sort(present_.begin(), present_.end());
    // Try the attribute whose generalization costs most first (Mondrian's
    // widest normalized range, measured in NCP so hierarchies count).
    std::vector<std::pair<double, size_t>> order;
    for (size_t a = 0; a < dims_; ++a) {
      const Cover whole = schema_.Generalize(a, lo_[a], hi_[a]);
      if (whole == schema_.Generalize(a, lo_[a], lo_[a])) continue;  // cannot shrink
      order.push_back({-schema_.Loss(a, whole), a});
    }
    std::sort(order.begin(), order.end());
    if (order.empty()) return false;
    uint64_t parent_cf = 0;
    if (spec_.rule == GroupingRule::kSignatureSlots) {
      SideGroupable(spec_, present_, [&](size_t i) { return count_[present_[i]]; }, n, &parent_cf);
    }
    for (const auto& [neg_loss, a] : order) {
      int32_t threshold = 0;
      if (!Threshold(b, e, a, lo_[a], hi_[a], &threshold)) continue;
      // Judge the cut by counts first; rows move only for the accepted one.
      ClearLeft();
      size_t nl = 0;
      for (size_t i = b; i < e; ++i) {
        const uint32_t left = Qi(i, a) <= threshold;  // no branch: sides are random
        nl += left;
        left_[Value(i)] += left;
      }
      if (nl == 0 || nl == n) continue;
      if (!Acceptable(nl, n - nl, parent_cf)) continue;
      *mid_out = Partition(b, e, a, threshold);
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

  // Moves rows with code <= threshold on attribute a before the others;
  // returns the first row of the second part.
  size_t Partition(size_t b, size_t e, size_t a, int32_t threshold) {
    size_t i = b, j = e;
    while (true) {
      while (i < j && Qi(i, a) <= threshold) ++i;
      while (i < j && Qi(j - 1, a) > threshold) --j;
      if (i >= j) return i;
      SwapRows(i, j - 1);
      ++i;
      --j;
    }
  }

  // Sorts rows [b, e) by (code of a, item): the order does not depend on
  // the rows' previous order.
  void SortRows(size_t b, size_t e, size_t a) {
    const size_t n = e - b;
    sort_keys_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const uint64_t code = static_cast<uint32_t>(Qi(b + i, a)) ^ 0x80000000u;  // order-preserving
      sort_keys_[i] = {(code << 32) | Item(b + i), static_cast<uint32_t>(i)};
    }
    std::sort(sort_keys_.begin(), sort_keys_.end());
    // Apply the permutation in place, cycle by cycle: row j takes the row at
    // sort_keys_[j].second; a finished slot points to itself.
    for (size_t start = 0; start < n; ++start) {
      if (sort_keys_[start].second == start) continue;
      std::copy(Row(b + start), Row(b + start) + width_, tmp_row_.begin());
      size_t j = start;
      while (true) {
        const size_t src = sort_keys_[j].second;
        sort_keys_[j].second = static_cast<uint32_t>(j);
        if (src == start) {
          std::copy(tmp_row_.begin(), tmp_row_.end(), Row(b + j));
          break;
        }
        std::copy(Row(b + src), Row(b + src) + width_, Row(b + j));
        j = src;
      }
    }
  }

  // Sorts the range by attribute `a` and tries every cut between distinct
  // codes, keeping running value counts of the left side (the right side is
  // the parent's counts minus the left): O(n log n + cuts * V).
  bool ScanSplit(size_t b, size_t e, size_t a, uint64_t parent_cf, size_t* mid_out) {
    SortRows(b, e, a);
    ClearLeft();
    const size_t n = e - b;
    size_t best = 0;
    double best_gap = 0;
    for (size_t i = 0; i + 1 < n; ++i) {
      ++left_[Value(b + i)];
      if (Qi(b + i, a) == Qi(b + i + 1, a)) continue;
      const size_t nl = i + 1, nr = n - nl;
      const double gap = std::abs(static_cast<double>(nl) - static_cast<double>(n) / 2);
      if (best != 0 && gap >= best_gap) continue;
      if (!Acceptable(nl, nr, parent_cf)) continue;
      best = nl;
      best_gap = gap;
    }
    if (best == 0) return false;
    *mid_out = b + best;
    return true;
  }

  // Left part = codes <= threshold. Picks the median, moved to a boundary
  // that actually shrinks the published cover (hierarchy child, fixed bin).
  bool Threshold(size_t b, size_t e, size_t a, int32_t lo, int32_t hi, int32_t* out) {
    const size_t n = e - b;
    // The median and the counts below a code come from a histogram of the
    // codes when their span is small against the range (one pass, no
    // data-dependent branches), otherwise from selection on a copy.
    const uint64_t span = static_cast<uint64_t>(static_cast<int64_t>(hi) - lo) + 1;
    const bool counted = span <= 2 * static_cast<uint64_t>(n);
    int32_t median = lo;
    if (counted) {
      hist_.assign(span, 0);
      for (size_t i = b; i < e; ++i) ++hist_[static_cast<size_t>(Qi(i, a) - lo)];
      size_t below = 0, c = 0;
      while (below + hist_[c] <= n / 2) below += hist_[c++];
      median = lo + static_cast<int32_t>(c);
    } else {
      keys_.resize(n);
      for (size_t i = 0; i < n; ++i) keys_[i] = Qi(b + i, a);
      std::nth_element(keys_.begin(), keys_.begin() + static_cast<ptrdiff_t>(n / 2), keys_.end());
      median = keys_[n / 2];
    }
    // Rows with code <= t, for lo <= t < hi.
    auto at_most = [&](int32_t t) {
      size_t k = 0;
      if (counted) {
        for (int32_t c = lo; c <= t; ++c) k += hist_[static_cast<size_t>(c - lo)];
      } else {
        for (int32_t v : keys_) k += v <= t;
      }
      return k;
    };
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
      const size_t n_before = at_most(before), n_after = at_most(after);
      const double half = static_cast<double>(n) / 2;
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

  void Cut(size_t b, size_t e) {
    std::vector<uint32_t> items(e - b);
    for (size_t i = b; i < e; ++i) items[i - b] = Item(i);
    std::sort(items.begin(), items.end());  // the cut sees the set, not the row order
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
    // the last groups, where the fewest real tuples are. Taking the tuples of
    // each value in k-d order puts neighbours in QI space into one group.
    KdOrder(schema_, work_, items);
    std::stable_sort(items.begin(), items.end(), [&](uint32_t x, uint32_t y) {
      return work_.sensitive[x] < work_.sensitive[y];
    });
    CountRange(b, e);
    uint32_t max = 0;
    for (uint32_t v : present_) max = std::max(max, count_[v]);
    const size_t first = groups_.size();
    groups_.resize(first + max);
    size_t run = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      if (i > 0 && work_.sensitive[items[i]] != work_.sensitive[items[i - 1]]) run = 0;
      groups_[first + run++].items.push_back(items[i]);
    }
  }

  const Schema& schema_;
  const WorkSet& work_;
  const GroupingSpec& spec_;
  const size_t dims_;
  const size_t width_;             // int32 words per row
  std::unique_ptr<int32_t[]> rows_;
  std::vector<uint32_t> count_;    // by dense value: rows of the current range
  std::vector<uint32_t> left_;     // by dense value: rows left of a candidate cut
  std::vector<uint32_t> present_;  // values with count_ > 0, ascending
  std::vector<int32_t> lo_, hi_;
  std::vector<int32_t> keys_;      // scratch: one attribute of a range
  std::vector<uint32_t> hist_;     // scratch: code counts of one attribute
  std::vector<std::pair<uint64_t, uint32_t>> sort_keys_;  // scratch for SortRows
  std::vector<int32_t> tmp_row_;
  std::vector<ItemGroup> groups_;
};

}  // namespace

bool CanGroup(const WorkSet& work, const std::vector<uint32_t>& items, const GroupingSpec& spec) {
  if (items.empty()) return false;
  std::vector<uint32_t> count(work.values.size(), 0);
  std::vector<uint32_t> present;
  for (uint32_t item : items) {
    if (count[work.sensitive[item]]++ == 0) present.push_back(work.sensitive[item]);
  }
  std::sort(present.begin(), present.end());
  uint64_t cf = 0;
  return SideGroupable(spec, present, [&](size_t i) { return count[present[i]]; }, items.size(), &cf);
}

std::vector<ItemGroup> PartitionIntoGroups(const Schema& schema, const WorkSet& work,
                                           const std::vector<uint32_t>& items,
                                           const GroupingSpec& spec) {
  if (items.empty()) return {};
  Partitioner p(schema, work, spec);
  return p.Run(items);
}

}  // namespace vanon
