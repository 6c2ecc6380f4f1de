#include "partitioner.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <utility>

#include "distinct_cut.h"

namespace vanon::engine {

namespace {

// Whether counts of one side satisfy the rule; `count(i)` is the count of
// values[i]. Shared by CanGroup and the split checks.
template <typename CountFn>
bool SideGroupable(const GroupingSpec& spec, const std::vector<uint32_t>& values, CountFn count, uint64_t n,
                   uint64_t* counterfeits) {
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

// The partitioner works on rows of QI codes that it moves along with the
// items: each level of the recursion then reads its range sequentially.
// Indexing the shared work set through the item ids instead (as an earlier
// version did) made every pass over a large partition a cache miss per item,
// because earlier splits scatter the ids. Values and item ids are parallel
// arrays moved in step with the rows.
//
// The sets of items in each final partition do not depend on the order of
// rows within a range (medians, counts and the sorted scan are order-free),
// and each final partition is handed to the cut in item order, so the output
// does not depend on how the rows were moved, nor on the input order.
class Partitioner {
 public:
  Partitioner(const Schema& schema, const WorkSet& work, const GroupingSpec& spec, ItemRows rows)
      : schema_(schema),
        work_(work),
        spec_(spec),
        dims_(work.dims),
        qi_(std::move(rows.qi)),
        items_(std::move(rows.items)),
        count_(work.values.size(), 0),
        left_(work.values.size(), 0),
        lo_(work.dims),
        hi_(work.dims),
        tmp_row_(work.dims) {
    values_.reserve(items_.size());
    for (uint32_t item : items_) values_.push_back(work_.sensitive[item]);
  }

  std::vector<ItemGroup> Run() {
    const size_t n = items_.size();
    // Every group holds at least m (k) items: reserve the most groups there
    // can be rather than grow by doubling.
    if (spec_.rule == GroupingRule::kDistinct) groups_.reserve(n / std::max<uint32_t>(spec_.m, 1));
    if (spec_.rule == GroupingRule::kAnonymity) groups_.reserve(n / std::max<uint32_t>(spec_.k, 1));
    std::vector<std::pair<size_t, size_t>> stack{{0, n}};
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
  int32_t* Row(size_t i) { return &qi_[i * dims_]; }
  int32_t Qi(size_t i, size_t a) const { return qi_[i * dims_ + a]; }
  uint32_t Value(size_t i) const { return values_[i]; }
  uint32_t Item(size_t i) const { return items_[i]; }

  void SwapRows(size_t i, size_t j) {
    std::swap_ranges(Row(i), Row(i) + dims_, Row(j));
    std::swap(values_[i], values_[j]);
    std::swap(items_[i], items_[j]);
  }

  void ClearLeft() {
    for (uint32_t v : present_) left_[v] = 0;
  }

  // Both sides of a cut with nl rows (counts in left_) and nr rows (counts
  // count_ - left_) are groupable and, for kSignatureSlots, need no more
  // counterfeits than the parent.
  bool Acceptable(uint64_t nl, uint64_t nr, uint64_t parent_cf) const {
    uint64_t cf_l = 0, cf_r = 0;
    if (!SideGroupable(
            spec_, present_, [&](size_t i) { return left_[present_[i]]; }, nl, &cf_l)) {
      return false;
    }
    if (!SideGroupable(
            spec_, present_, [&](size_t i) { return count_[present_[i]] - left_[present_[i]]; }, nr, &cf_r)) {
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
      const uint32_t v = values_[i];
      if (count_[v]++ == 0) present_.push_back(v);
    }
    // Only the EMD's floating-point sum depends on the order of the values;
    // keep it independent of the row order.
    if (spec_.t > 0) std::sort(present_.begin(), present_.end());
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
      SideGroupable(
          spec_, present_, [&](size_t i) { return count_[present_[i]]; }, n, &parent_cf);
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
      std::copy(Row(b + start), Row(b + start) + dims_, tmp_row_.begin());
      const uint32_t tmp_value = values_[b + start], tmp_item = items_[b + start];
      size_t j = start;
      while (true) {
        const size_t src = sort_keys_[j].second;
        sort_keys_[j].second = static_cast<uint32_t>(j);
        if (src == start) {
          std::copy(tmp_row_.begin(), tmp_row_.end(), Row(b + j));
          values_[b + j] = tmp_value;
          items_[b + j] = tmp_item;
          break;
        }
        std::copy(Row(b + src), Row(b + src) + dims_, Row(b + j));
        values_[b + j] = values_[b + src];
        items_[b + j] = items_[b + src];
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
      *out = std::abs(static_cast<double>(n_before) - half) <= std::abs(static_cast<double>(n_after) - half) ? before
                                                                                                             : after;
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

  // Covers of the rows at `positions` of a leaf laid out as `leaf`.
  std::vector<Cover> CoversOf(const WorkSet& leaf, const std::vector<uint32_t>& positions) const {
    std::vector<int32_t> lo(dims_), hi(dims_);
    for (size_t a = 0; a < dims_; ++a) lo[a] = hi[a] = leaf.Qi(positions.front(), a);
    for (uint32_t p : positions) {
      for (size_t a = 0; a < dims_; ++a) {
        lo[a] = std::min(lo[a], leaf.Qi(p, a));
        hi[a] = std::max(hi[a], leaf.Qi(p, a));
      }
    }
    std::vector<Cover> covers(dims_);
    for (size_t a = 0; a < dims_; ++a) covers[a] = schema_.Generalize(a, lo[a], hi[a]);
    return covers;
  }

  void Emit(const WorkSet& leaf, const std::vector<uint32_t>& item_of, std::vector<uint32_t> positions) {
    ItemGroup g;
    g.qi = CoversOf(leaf, positions);
    for (uint32_t& p : positions) p = item_of[p];
    g.items = std::move(positions);
    groups_.push_back(std::move(g));
  }

  // Most final partitions of a large release hold fewer than 2m tuples of
  // different values: they form one group in value order (what CutDistinct
  // returns for them), emitted here without building a leaf work set.
  // `order` holds the positions [b, e).
  bool OneGroup(size_t b, size_t e, std::vector<uint32_t>* order) {
    std::sort(order->begin(), order->end(), [&](uint32_t x, uint32_t y) { return Value(x) < Value(y); });
    for (size_t i = 1; i < order->size(); ++i) {
      if (Value((*order)[i]) == Value((*order)[i - 1])) return false;
    }
    ItemGroup g;
    g.qi.resize(dims_);
    for (size_t a = 0; a < dims_; ++a) {
      int32_t lo = Qi(b, a), hi = lo;
      for (size_t i = b; i < e; ++i) {
        lo = std::min(lo, Qi(i, a));
        hi = std::max(hi, Qi(i, a));
      }
      g.qi[a] = schema_.Generalize(a, lo, hi);
    }
    g.items.reserve(order->size());
    for (uint32_t p : *order) g.items.push_back(Item(p));
    groups_.push_back(std::move(g));
    return true;
  }

  // Cuts the final partition [b, e). The cut sees the partition as a small
  // work set of its own, rows in item order (local id i = i-th smallest
  // item), so it neither depends on the row order nor reads the shared QI
  // array (which PlaceNew may have handed over as rows).
  void Cut(size_t b, size_t e) {
    const size_t n = e - b;
    std::vector<uint32_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint32_t>(b + i);
    if (spec_.rule == GroupingRule::kDistinct && n < 2 * static_cast<size_t>(spec_.m) && OneGroup(b, e, &order)) {
      return;
    }
    std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) { return Item(x) < Item(y); });
    WorkSet leaf;
    leaf.dims = dims_;
    leaf.qi.resize(n * dims_);
    leaf.sensitive.resize(n);
    std::vector<uint32_t> item_of(n);
    for (size_t i = 0; i < n; ++i) {
      std::copy(Row(order[i]), Row(order[i]) + dims_, &leaf.qi[i * dims_]);
      leaf.sensitive[i] = Value(order[i]);
      item_of[i] = Item(order[i]);
    }
    std::vector<uint32_t> all(n);
    for (size_t i = 0; i < n; ++i) all[i] = static_cast<uint32_t>(i);
    if (spec_.rule == GroupingRule::kAnonymity) {
      Emit(leaf, item_of, std::move(all));
      return;
    }
    if (spec_.rule == GroupingRule::kDistinct) {
      for (auto& g : CutDistinct(schema_, leaf, std::move(all), spec_.m)) Emit(leaf, item_of, std::move(g));
      return;
    }
    // kSignatureSlots: the i-th tuple of each value goes to group i, so every
    // group holds at most one tuple per value and the counterfeits collect in
    // the last groups, where the fewest real tuples are. Taking the tuples of
    // each value in k-d order puts neighbours in QI space into one group.
    KdOrder(schema_, leaf, all);
    std::stable_sort(all.begin(), all.end(),
                     [&](uint32_t x, uint32_t y) { return leaf.sensitive[x] < leaf.sensitive[y]; });
    std::vector<std::vector<uint32_t>> dealt;
    size_t run = 0;
    for (size_t i = 0; i < n; ++i) {
      if (i > 0 && leaf.sensitive[all[i]] != leaf.sensitive[all[i - 1]]) run = 0;
      if (run == dealt.size()) dealt.emplace_back();
      dealt[run++].push_back(all[i]);
    }
    for (auto& g : dealt) Emit(leaf, item_of, std::move(g));
  }

  const Schema& schema_;
  const WorkSet& work_;
  const GroupingSpec& spec_;
  const size_t dims_;
  std::vector<int32_t> qi_;        // row i: dims_ codes
  std::vector<uint32_t> values_;   // row i: dense sensitive id
  std::vector<uint32_t> items_;    // row i: item id
  std::vector<uint32_t> count_;    // by dense value: rows of the current range
  std::vector<uint32_t> left_;     // by dense value: rows left of a candidate cut
  std::vector<uint32_t> present_;  // values with count_ > 0 (ascending when spec_.t > 0)
  std::vector<int32_t> lo_, hi_;
  std::vector<int32_t> keys_;                             // scratch: one attribute of a range
  std::vector<uint32_t> hist_;                            // scratch: code counts of one attribute
  std::vector<std::pair<uint64_t, uint32_t>> sort_keys_;  // scratch for SortRows
  std::vector<int32_t> tmp_row_;
  std::vector<ItemGroup> groups_;
};

}  // namespace

ItemRows GatherRows(const WorkSet& work, const std::vector<uint32_t>& items) {
  ItemRows rows;
  rows.qi.resize(items.size() * work.dims);
  for (size_t i = 0; i < items.size(); ++i) {
    const int32_t* q = &work.qi[static_cast<size_t>(items[i]) * work.dims];
    std::copy(q, q + work.dims, &rows.qi[i * work.dims]);
  }
  rows.items = items;
  return rows;
}

ItemRows TakeRows(WorkSet* work, std::vector<uint32_t> items) {
  // Ascending items move only towards the front: row items[j] >= j has not
  // been overwritten when it is moved to j.
  std::sort(items.begin(), items.end());
  const size_t dims = work->dims;
  for (size_t j = 0; j < items.size(); ++j) {
    if (items[j] != j) std::copy_n(&work->qi[static_cast<size_t>(items[j]) * dims], dims, &work->qi[j * dims]);
  }
  ItemRows rows;
  rows.qi = std::move(work->qi);
  rows.qi.resize(items.size() * dims);
  work->qi.clear();
  rows.items = std::move(items);
  return rows;
}
bool CanGroup(const WorkSet& work, const std::vector<uint32_t>& items, const GroupingSpec& spec) {
  if (items.empty()) return false;
  std::vector<uint32_t> count(work.values.size(), 0);
  std::vector<uint32_t> present;
  for (uint32_t item : items) {
    if (count[work.sensitive[item]]++ == 0) present.push_back(work.sensitive[item]);
  }
  std::sort(present.begin(), present.end());
  uint64_t cf = 0;
  return SideGroupable(
      spec, present, [&](size_t i) { return count[present[i]]; }, items.size(), &cf);
}

std::vector<ItemGroup> PartitionIntoGroups(const Schema& schema, const WorkSet& work, ItemRows rows,
                                           const GroupingSpec& spec) {
  if (rows.items.empty()) return {};
  return Partitioner(schema, work, spec, std::move(rows)).Run();
}

}  // namespace vanon::engine
