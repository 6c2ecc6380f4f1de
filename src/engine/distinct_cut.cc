#include "distinct_cut.h"

#include <algorithm>
#include <utility>

namespace vanon::engine {

namespace {

// Tuples within this many live positions of a group's seed are its
// candidates; beyond that the nearest tuple of each missing value is used.
constexpr size_t kWindow = 256;
// Tuples of a forced value compared when it joins a group.
constexpr size_t kForcedCandidates = 16;

}  // namespace

void KdOrder(const Schema& schema, const WorkSet& work, std::vector<uint32_t>& items) {
  const size_t dims = work.dims;
  std::vector<int32_t> lo(dims), hi(dims);
  std::vector<std::pair<size_t, size_t>> stack{{0, items.size()}};
  while (!stack.empty()) {
    auto [b, e] = stack.back();
    stack.pop_back();
    if (e - b <= 4) continue;
    for (size_t a = 0; a < dims; ++a) lo[a] = hi[a] = work.Qi(items[b], a);
    for (size_t i = b; i < e; ++i) {
      for (size_t a = 0; a < dims; ++a) {
        lo[a] = std::min(lo[a], work.Qi(items[i], a));
        hi[a] = std::max(hi[a], work.Qi(items[i], a));
      }
    }
    size_t best = dims;
    double best_loss = 0;
    for (size_t a = 0; a < dims; ++a) {
      if (lo[a] == hi[a]) continue;
      const double loss = schema.Loss(a, schema.Generalize(a, lo[a], hi[a]));
      if (best == dims || loss > best_loss) {
        best = a;
        best_loss = loss;
      }
    }
    if (best == dims) continue;  // all equal
    const size_t mid = b + (e - b) / 2;
    auto first = items.begin() + static_cast<ptrdiff_t>(b);
    std::nth_element(first, items.begin() + static_cast<ptrdiff_t>(mid), items.begin() + static_cast<ptrdiff_t>(e),
                     [&](uint32_t x, uint32_t y) {
                       const int32_t qx = work.Qi(x, best), qy = work.Qi(y, best);
                       return qx != qy ? qx < qy : x < y;
                     });
    stack.push_back({mid, e});
    stack.push_back({b, mid});
  }
}

namespace {

// Dense ids of the items' values lie below this.
size_t Domain(const WorkSet& work, const std::vector<uint32_t>& items) {
  uint32_t max = 0;
  for (uint32_t item : items) max = std::max(max, work.sensitive[item]);
  return static_cast<size_t>(max) + 1;
}

class Cutter {
 public:
  Cutter(const Schema& schema, const WorkSet& work, std::vector<uint32_t> items, uint32_t m)
      : schema_(schema),
        work_(work),
        m_(m),
        items_(std::move(items)),
        n_(items_.size()),
        next_(n_ + 1),
        prev_(n_ + 1),
        live_(n_, true),
        by_value_(Domain(work, items_)),
        head_(Domain(work, items_), 0),
        count_(Domain(work, items_), 0),
        used_(Domain(work, items_), false),
        lo_(work.dims),
        hi_(work.dims),
        cover_(work.dims),
        cover_loss_(work.dims) {}

  std::vector<std::vector<uint32_t>> Run() {
    KdOrder(schema_, work_, items_);
    // Live positions form a circular doubly-linked list through sentinel n_.
    for (size_t p = 0; p <= n_; ++p) {
      next_[p] = p == n_ ? 0 : p + 1;
      prev_[p] = p == 0 ? n_ : p - 1;
    }
    if (n_ == 0) next_[n_] = prev_[n_] = n_;
    uint32_t max_count = 0;
    for (size_t p = 0; p < n_; ++p) {
      const uint32_t v = Value(p);
      if (by_value_[v].empty()) present_.push_back(v);
      by_value_[v].push_back(p);
      max_count = std::max(max_count, ++count_[v]);
    }
    std::sort(present_.begin(), present_.end());
    size_t remaining = n_;
    std::vector<size_t> group;
    std::vector<uint32_t> forced;
    while (remaining >= 2 * static_cast<size_t>(m_)) {
      // Removing m tuples must leave every value at most (remaining - m) / m
      // times, so the values at the limit now must all be in this group.
      const uint32_t q = static_cast<uint32_t>(remaining / m_);
      forced.clear();
      if (max_count >= q) {
        for (uint32_t v : present_) {
          if (count_[v] >= q) forced.push_back(v);
        }
      }
      size_t seed = next_[n_];
      const bool seed_forced = std::find(forced.begin(), forced.end(), Value(seed)) != forced.end();
      if (forced.size() + (seed_forced ? 0 : 1) > m_) {
        if (forced.size() > m_) break;  // cannot happen for a valid partition
        seed = Head(forced.front());
        for (uint32_t v : forced) seed = std::min(seed, Head(v));
      }
      group.clear();
      Start(seed, &group);
      for (uint32_t v : forced) {
        if (!used_[v]) Add(BestOfValue(v), &group);
      }
      while (group.size() < m_) Add(BestNear(seed), &group);
      for (size_t p : group) {
        const uint32_t v = Value(p);
        used_[v] = false;
        live_[p] = false;
        --count_[v];
        next_[prev_[p]] = next_[p];
        prev_[next_[p]] = prev_[p];
      }
      max_count = 0;
      for (uint32_t v : present_) max_count = std::max(max_count, count_[v]);
      remaining -= m_;
      Emit(group);
    }
    Finish(remaining);
    return std::move(groups_);
  }

 private:
  uint32_t Value(size_t p) const { return work_.sensitive[items_[p]]; }
  int32_t Qi(size_t p, size_t a) const { return work_.Qi(items_[p], a); }

  // First live position holding value v (value lists are in position order).
  size_t Head(uint32_t v) {
    auto& list = by_value_[v];
    while (head_[v] < list.size() && !Live(list[head_[v]])) ++head_[v];
    return list[head_[v]];
  }
  bool Live(size_t p) const { return live_[p]; }

  void Start(size_t p, std::vector<size_t>* group) {
    for (size_t a = 0; a < work_.dims; ++a) {
      lo_[a] = hi_[a] = Qi(p, a);
      cover_[a] = schema_.Generalize(a, lo_[a], hi_[a]);
      cover_loss_[a] = schema_.Loss(a, cover_[a]);
    }
    used_[Value(p)] = true;
    group->push_back(p);
  }

  void Add(size_t p, std::vector<size_t>* group) {
    for (size_t a = 0; a < work_.dims; ++a) {
      const int32_t v = Qi(p, a);
      if (v >= lo_[a] && v <= hi_[a]) continue;
      lo_[a] = std::min(lo_[a], v);
      hi_[a] = std::max(hi_[a], v);
      cover_[a] = schema_.Generalize(a, lo_[a], hi_[a]);
      cover_loss_[a] = schema_.Loss(a, cover_[a]);
    }
    used_[Value(p)] = true;
    group->push_back(p);
  }

  // Loss the group's cover gains when p joins it.
  double AddedLoss(size_t p) const {
    double added = 0;
    for (size_t a = 0; a < work_.dims; ++a) {
      const int32_t v = Qi(p, a);
      if (v >= cover_[a].lo && v <= cover_[a].hi) continue;
      added += schema_.Loss(a, schema_.Generalize(a, std::min(lo_[a], v), std::max(hi_[a], v))) - cover_loss_[a];
    }
    return added;
  }

  size_t BestOfValue(uint32_t v) {
    const auto& list = by_value_[v];
    size_t best = Head(v);
    double best_loss = AddedLoss(best);
    size_t seen = 1;
    for (size_t i = head_[v] + 1; i < list.size() && seen < kForcedCandidates && best_loss > 0; ++i) {
      if (!Live(list[i])) continue;
      ++seen;
      const double loss = AddedLoss(list[i]);
      if (loss < best_loss) {
        best = list[i];
        best_loss = loss;
      }
    }
    return best;
  }

  // The cheapest live tuple of an unused value near the seed; failing that,
  // the cheapest first tuple of any unused value.
  size_t BestNear(size_t seed) {
    size_t best = n_;
    double best_loss = 0;
    auto consider = [&](size_t p) {
      if (used_[Value(p)]) return;
      const double loss = AddedLoss(p);
      if (best == n_ || loss < best_loss) {
        best = p;
        best_loss = loss;
      }
    };
    size_t steps = 0;
    for (size_t p = next_[seed]; p != n_ && steps < kWindow; p = next_[p], ++steps) {
      consider(p);
      if (best != n_ && best_loss == 0) return best;
    }
    if (best == n_) {
      for (uint32_t v : present_) {
        if (count_[v] > 0 && !used_[v]) consider(Head(v));
      }
    }
    return best;
  }

  void Emit(const std::vector<size_t>& group) {
    std::vector<uint32_t> out;
    out.reserve(group.size());
    for (size_t p : group) out.push_back(items_[p]);
    groups_.push_back(std::move(out));
  }

  // The rest is still groupable; fewer than 2m tuples means one group of
  // distinct values. Otherwise (only if the forced values ever overflowed)
  // deal the rest round-robin by value.
  void Finish(size_t remaining) {
    if (remaining == 0) return;
    std::vector<size_t> rest;
    for (size_t p = next_[n_]; p != n_; p = next_[p]) rest.push_back(p);
    std::stable_sort(rest.begin(), rest.end(), [&](size_t x, size_t y) { return Value(x) < Value(y); });
    const size_t groups = std::max<size_t>(rest.size() / m_, 1);
    std::vector<std::vector<size_t>> dealt(groups);
    for (size_t i = 0; i < rest.size(); ++i) dealt[i % groups].push_back(rest[i]);
    for (const auto& g : dealt) Emit(g);
  }

  const Schema& schema_;
  const WorkSet& work_;
  const uint32_t m_;
  std::vector<uint32_t> items_;
  const size_t n_;
  std::vector<size_t> next_, prev_;
  std::vector<bool> live_;
  std::vector<std::vector<size_t>> by_value_;
  std::vector<size_t> head_;
  std::vector<uint32_t> count_;
  std::vector<bool> used_;
  std::vector<uint32_t> present_;
  std::vector<int32_t> lo_, hi_;
  std::vector<Cover> cover_;
  std::vector<double> cover_loss_;
  std::vector<std::vector<uint32_t>> groups_;
};

}  // namespace

std::vector<std::vector<uint32_t>> CutDistinct(const Schema& schema, const WorkSet& work, std::vector<uint32_t> items,
                                               uint32_t m) {
  m = std::max<uint32_t>(m, 1);
  return Cutter(schema, work, std::move(items), m).Run();
}

}  // namespace vanon::engine
