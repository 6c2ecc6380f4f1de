// ComputeRelease: new signatures (m-invariance, with the history-aware
// options of docs/utility.md) and k-anonymous groups.
#include "release_builder.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "partitioner.h"

namespace vanon::engine::internal {

// The remaining new vehicles form new signatures of >= m distinct values.
// First the fewest tuples of the most frequent values are held back until
// every value is at most 1/m of the rest (the partition condition); which
// ones is decided by a seeded hash of the vehicle key.
void ReleaseBuilder::PlaceNew() {
  if (params_.history_min_events > 0) Learn();
  if (params_.shared_signatures > 0) PlaceShared();
  const uint32_t full = std::max<uint32_t>(params_.m, 1);
  // Real tuples each new group needs; counterfeits fill the other slots.
  // Counterfeit values must differ from the real ones, so they need a domain
  // of at least m values.
  const uint32_t m = work_.values.size() < full ? full : full - std::min(params_.new_group_counterfeits, full - 1);
  std::vector<size_t> keep;
  std::vector<uint32_t> kept = KeepGroupable(m, &keep);
  FormNewGroups(std::move(kept), keep, m, full);
}

// Holds back (waiting or suppressed) the fewest tuples of the most frequent
// values so that every value is at most 1/m of the rest; `keep` receives how
// many tuples of each dense value stay. Returns the kept items.
std::vector<uint32_t> ReleaseBuilder::KeepGroupable(uint32_t m, std::vector<size_t>* keep_out) {
  // Exact reservations here and below: grown by doubling, these vectors
  // touched twice their size in fresh pages, and page faults are a large
  // share of a million-tuple release.
  std::vector<std::vector<uint32_t>> by_value(work_.values.size());
  {
    std::vector<size_t> count(work_.values.size(), 0);
    for (uint32_t item : fresh_) ++count[work_.sensitive[item]];
    for (size_t v = 0; v < count.size(); ++v) by_value[v].reserve(count[v]);
  }
  for (uint32_t item : fresh_) by_value[work_.sensitive[item]].push_back(item);
  const size_t fresh = fresh_.size();
  std::vector<uint32_t>().swap(fresh_);
  // Keeping min(count, C) of every value is groupable iff m * C <= kept
  // tuples; kept - m * C is concave in C, so the largest such C (which keeps
  // the most tuples) is found by binary search.
  auto kept_with_cap = [&](size_t cap) {
    size_t kept = 0;
    for (const auto& items : by_value) kept += std::min(items.size(), cap);
    return kept;
  };
  size_t lo = 0, hi = fresh;
  while (lo < hi) {
    const size_t cap = (lo + hi + 1) / 2;
    if (kept_with_cap(cap) >= cap * m) {
      lo = cap;
    } else {
      hi = cap - 1;
    }
  }
  std::vector<size_t>& keep = *keep_out;
  keep.assign(by_value.size(), 0);
  for (uint32_t v = 0; v < by_value.size(); ++v) keep[v] = std::min(by_value[v].size(), lo);
  std::vector<uint32_t> kept;
  kept.reserve(std::accumulate(keep.begin(), keep.end(), size_t{0}));
  for (uint32_t v = 0; v < by_value.size(); ++v) {
    auto& items = by_value[v];
    if (keep[v] < items.size()) {
      // Hash each key once, not once per comparison.
      std::vector<std::pair<uint64_t, uint32_t>> hashed;
      hashed.reserve(items.size());
      for (uint32_t item : items) {
        hashed.push_back({KeyHash(params_.seed, ResolveTuple(in_, work_.ref[item]).vehicle), item});
      }
      std::sort(hashed.begin(), hashed.end());
      for (size_t i = 0; i < items.size(); ++i) items[i] = hashed[i].second;
      for (size_t i = keep[v]; i < items.size(); ++i) WaitOrSuppress(work_.ref[items[i]]);
    }
    kept.insert(kept.end(), items.begin(), items.begin() + static_cast<ptrdiff_t>(keep[v]));
  }
  return kept;
}

// Cuts the kept new vehicles into groups of >= m distinct real values and
// gives each its signature, filled up to `full` values with counterfeits.
void ReleaseBuilder::FormNewGroups(std::vector<uint32_t> kept, const std::vector<size_t>& keep, uint32_t m,
                                   uint32_t full) {
  GroupingSpec spec;
  spec.rule = GroupingRule::kDistinct;
  spec.m = m;
  if (!CanGroup(work_, kept, spec)) {
    for (uint32_t item : kept) WaitOrSuppress(work_.ref[item]);
    return;
  }
  // Counterfeits take the values most frequent among the kept tuples, so
  // that new signatures repeat (larger buckets in later releases) and later
  // new vehicles are likely to fill the slots.
  std::vector<uint32_t> by_frequency;
  if (m < full) {
    for (uint32_t v = 0; v < keep.size(); ++v) by_frequency.push_back(v);
    std::stable_sort(by_frequency.begin(), by_frequency.end(),
                     [&](uint32_t x, uint32_t y) { return keep[x] > keep[y]; });
  }
  // The last use of the QI codes (groups carry their covers from here on):
  // the partitioner takes the work set's QI array instead of a copy.
  std::vector<ItemGroup> partitioned = PartitionIntoGroups(schema_, work_, TakeRows(&work_, std::move(kept)), spec);
  groups_.reserve(groups_.size() + partitioned.size());
  for (ItemGroup& g : partitioned) {
    Building b;
    b.signature.reserve(full);
    for (uint32_t item : g.items) b.signature.push_back(work_.sensitive[item]);
    std::sort(b.signature.begin(), b.signature.end());
    for (size_t i = 0; i < by_frequency.size() && b.signature.size() + b.counterfeits.size() < full; ++i) {
      const uint32_t v = by_frequency[i];
      if (!std::binary_search(b.signature.begin(), b.signature.end(), v)) b.counterfeits.push_back(v);
    }
    b.signature.insert(b.signature.end(), b.counterfeits.begin(), b.counterfeits.end());
    std::sort(b.signature.begin(), b.signature.end());
    b.items = std::move(g.items);
    if (params_.history_slots > 0) AddHistorySlots(&b);
    std::sort(b.counterfeits.begin(), b.counterfeits.end());
    b.qi = std::move(g.qi);
    groups_.push_back(std::move(b));
  }
}

// The caller's history of an item's vehicle (empty when none).
const std::vector<ValueCount>& ReleaseBuilder::History(uint32_t item) const {
  static const std::vector<ValueCount> kNone;
  auto it = in_.histories.find(ResolveTuple(in_, work_.ref[item]).vehicle);
  return it == in_.histories.end() ? kNone : it->second;
}

// New vehicles with too little history wait while their delay allows, so
// that their signature is chosen from what they did over several epochs.
void ReleaseBuilder::Learn() {
  std::vector<uint32_t> ready;
  ready.reserve(fresh_.size());
  for (uint32_t item : fresh_) {
    const TupleRef ref = work_.ref[item];
    uint64_t events = 0;
    for (const ValueCount& c : History(item)) events += c.count;
    if (events < params_.history_min_events && in_.release_id < FirstRelease(in_, ref) + params_.max_delay) {
      out_.waiting.push_back({ref, FirstRelease(in_, ref)});
    } else {
      ready.push_back(item);
    }
  }
  fresh_ = std::move(ready);
}

// Adds to a new group's signature, as counterfeit slots, up to
// history_slots values its members are likely to take next: the values
// with the largest summed share of the members' events (each share at
// least history_min_share). A member whose value later moves to one of
// them stays published instead of conflicting with its signature.
void ReleaseBuilder::AddHistorySlots(Building* b) const {
  std::map<uint32_t, double> score;
  for (uint32_t item : b->items) {
    const std::vector<ValueCount>& history = History(item);
    uint64_t total = 0;
    for (const ValueCount& c : history) total += c.count;
    if (total == 0) continue;
    for (const ValueCount& c : history) {
      const double share = static_cast<double>(c.count) / static_cast<double>(total);
      const uint32_t dense = work_.Dense(c.value);
      if (share < params_.history_min_share || dense >= work_.values.size()) continue;
      if (std::binary_search(b->signature.begin(), b->signature.end(), dense)) continue;
      score[dense] += share;
    }
  }
  std::vector<std::pair<double, uint32_t>> ranked;
  for (const auto& [dense, sc] : score) ranked.push_back({-sc, dense});
  std::sort(ranked.begin(), ranked.end());
  for (size_t i = 0; i < ranked.size() && i < params_.history_slots; ++i) {
    b->counterfeits.push_back(ranked[i].second);
    b->signature.push_back(ranked[i].second);
  }
  std::sort(b->signature.begin(), b->signature.end());
}

void ReleaseBuilder::PlaceAnonymous() {
  GroupingSpec spec;
  spec.rule = GroupingRule::kAnonymity;
  spec.k = std::max<uint32_t>(params_.k, 1);
  spec.l = params_.l;
  spec.t = params_.t;
  std::vector<uint32_t> items(work_.ref.size());
  for (uint32_t i = 0; i < items.size(); ++i) items[i] = i;
  if (spec.t > 0) {
    spec.global.assign(work_.values.size(), 0.0);
    for (uint32_t v : work_.sensitive) spec.global[v] += 1.0 / static_cast<double>(items.size());
  }
  if (!CanGroup(work_, items, spec)) {
    for (uint32_t item : items) WaitOrSuppress(work_.ref[item]);
    return;
  }
  for (ItemGroup& g : PartitionIntoGroups(schema_, work_, TakeRows(&work_, std::move(items)), spec)) {
    Building b;
    for (uint32_t item : g.items) b.signature.push_back(work_.sensitive[item]);
    std::sort(b.signature.begin(), b.signature.end());
    b.signature.erase(std::unique(b.signature.begin(), b.signature.end()), b.signature.end());
    b.items = std::move(g.items);
    b.qi = std::move(g.qi);
    groups_.push_back(std::move(b));
  }
}

}  // namespace vanon::engine::internal
