// ComputeRelease: triage, then m-invariant placement (or k-anonymity), then
// covers and metrics. The algorithm and its complexity are in docs/engine.md.
#include "vanon/engine/release.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <numeric>

#include "partitioner.h"
#include "work_set.h"

namespace vanon {

const char* ToString(SuppressReason reason) {
  switch (reason) {
    case SuppressReason::kSignatureConflict: return "signature_conflict";
    case SuppressReason::kDelay: return "delay";
    case SuppressReason::kIneligible: return "ineligible";
  }
  return "unknown";
}

const Tuple& ResolveTuple(const ReleaseInput& input, TupleRef ref) {
  if (ref < input.tuples.size()) return input.tuples[ref];
  return input.waiting[ref - input.tuples.size()].tuple;
}

uint64_t FirstRelease(const ReleaseInput& input, TupleRef ref) {
  if (ref < input.tuples.size()) return input.release_id;
  return input.waiting[ref - input.tuples.size()].first_release;
}

std::vector<std::string> GroupLabels(const Schema& schema, const Group& group) {
  std::vector<std::string> labels;
  labels.reserve(group.qi.size());
  for (size_t a = 0; a < group.qi.size(); ++a) labels.push_back(schema.Label(a, group.qi[a]));
  return labels;
}

namespace {

// Stable 64-bit mix of the seed and a vehicle key (FNV-1a, then splitmix64):
// no std::hash, whose value may differ between library builds.
uint64_t KeyHash(uint64_t seed, const std::string& key) {
  uint64_t h = 1469598103934665603ULL ^ seed;
  for (unsigned char c : key) h = (h ^ c) * 1099511628211ULL;
  h += 0x9e3779b97f4a7c15ULL;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

// The first 8 bytes of a key, big-endian and zero-padded: ordering by it
// agrees with std::string's ordering whenever the prefixes differ.
uint64_t KeyPrefix(const std::string& key) {
  uint64_t p = 0;
  for (size_t i = 0; i < 8; ++i) {
    p = (p << 8) | (i < key.size() ? static_cast<unsigned char>(key[i]) : 0u);
  }
  return p;
}

// New vehicles of one value waiting to fill counterfeit slots: sorted by QI
// order, taken ones skipped through path-compressed links to the nearest
// untaken neighbour. (A std::set per value cost a tree insert and erase per
// candidate, each comparison a cache miss into the QI array.)
struct Pool {
  static constexpr size_t kNone = SIZE_MAX;
  std::vector<uint32_t> items;
  std::vector<uint32_t> next;  // next[i]: first untaken >= i (size() = none)
  std::vector<uint32_t> prev;  // prev[i]: 1 + last untaken < i (0 = none)
  size_t left = 0;

  template <typename Less>
  void Sort(Less less) {
    std::sort(items.begin(), items.end(), less);
    next.resize(items.size() + 1);
    prev.resize(items.size() + 1);
    for (size_t i = 0; i <= items.size(); ++i) next[i] = prev[i] = static_cast<uint32_t>(i);
    left = items.size();
  }
  // First position whose item is not less than `item`, taken or not.
  template <typename Less>
  size_t LowerBound(uint32_t item, Less less) const {
    return static_cast<size_t>(std::lower_bound(items.begin(), items.end(), item, less) - items.begin());
  }
  // First untaken position >= i, or kNone.
  size_t NextFrom(size_t i) {
    const size_t p = Find(next, i);
    return p == items.size() ? kNone : p;
  }
  // Last untaken position < i, or kNone.
  size_t PrevBefore(size_t i) {
    const size_t p = Find(prev, i);
    return p == 0 ? kNone : p - 1;
  }
  void Take(size_t i) {
    next[i] = static_cast<uint32_t>(i + 1);
    prev[i + 1] = static_cast<uint32_t>(i);
    --left;
  }

 private:
  // Root of i in a forest where every slot points at itself or further
  // along; halves the path on the way (amortized near-constant).
  static size_t Find(std::vector<uint32_t>& link, size_t i) {
    while (link[i] != i) {
      link[i] = link[link[i]];
      i = link[i];
    }
    return i;
  }
};

// A group while it is being built: items plus counterfeit slots (dense ids).
struct Building {
  std::vector<uint32_t> items;
  std::vector<uint32_t> counterfeits;
  std::vector<uint32_t> signature;  // dense ids, sorted
  std::vector<Cover> qi;            // covers of the items
};

// A new vehicle's place in out_.new_signatures: sorted as (8-byte key
// prefix, ref, group) so the sort compares integers, not strings, in the
// common case.
struct FreshKey {
  uint64_t prefix;
  TupleRef ref;
  uint32_t group;
};

class ReleaseBuilder {
 public:
  ReleaseBuilder(const Schema& schema, const ReleaseInput& input)
      : schema_(schema), in_(input), params_(input.params) {}

  ReleaseOutput Run() {
    Triage();
    BuildWorkSet();
    if (params_.model == Model::kMInvariance) {
      PlaceKnown();
      FillFreeSlots();
      PlaceNew();
    } else {
      PlaceAnonymous();
    }
    Finish();
    return std::move(out_);
  }

 private:
  void Suppress(TupleRef ref, SuppressReason reason) { out_.suppressed.push_back({ref, reason}); }

  // Holds a tuple for a later release, or suppresses it once its delay is up.
  void WaitOrSuppress(TupleRef ref) {
    const uint64_t first = FirstRelease(in_, ref);
    if (in_.release_id < first + params_.max_delay) {
      out_.waiting.push_back({ref, first});
    } else {
      Suppress(ref, SuppressReason::kDelay);
    }
  }

  // Drops invalid tuples and keeps one tuple per vehicle: a second tuple of a
  // vehicle in the same release is ineligible; a waiting tuple is superseded
  // (suppressed as delayed) by a newer tuple of the same vehicle.
  void Triage() {
    const size_t total = in_.tuples.size() + in_.waiting.size();
    // Tuples of one vehicle must meet: sort by a 64-bit hash of the key and
    // compare the keys themselves only within equal hashes (string sorts of
    // HMAC keys were the hot spot here).
    const size_t current = in_.tuples.size();
    std::vector<std::pair<uint64_t, TupleRef>> keyed;
    keyed.reserve(total);
    std::vector<bool> dropped(total, false);
    for (TupleRef ref = 0; ref < total; ++ref) {
      const Tuple& t = ResolveTuple(in_, ref);
      bool ok = t.qi.size() == schema_.size();
      for (size_t a = 0; ok && a < t.qi.size(); ++a) {
        // Unknown values are tracked in a 64-bit mask per item.
        ok = t.qi[a] == kUnknownQiCode ? a < 64 : schema_.IsValidCode(a, t.qi[a]);
      }
      if (ok) {
        keyed.push_back({KeyHash(0, t.vehicle), ref});
      } else {
        Suppress(ref, SuppressReason::kIneligible);
        dropped[ref] = true;
      }
    }
    auto newer_first = [&](TupleRef x, TupleRef y) {
      const bool cx = x < current, cy = y < current;
      if (cx != cy) return cx;
      const uint64_t fx = FirstRelease(in_, x), fy = FirstRelease(in_, y);
      if (fx != fy) return fx > fy;
      return x < y;
    };
    std::sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
      if (x.first != y.first) return x.first < y.first;
      const std::string& kx = ResolveTuple(in_, x.second).vehicle;
      const std::string& ky = ResolveTuple(in_, y.second).vehicle;
      if (kx != ky) return kx < ky;
      return newer_first(x.second, y.second);
    });
    size_t kept = keyed.size();
    for (size_t i = 1; i < keyed.size(); ++i) {
      const TupleRef ref = keyed[i].second;
      if (keyed[i].first == keyed[i - 1].first &&
          ResolveTuple(in_, ref).vehicle == ResolveTuple(in_, keyed[i - 1].second).vehicle) {
        Suppress(ref, ref < current ? SuppressReason::kIneligible : SuppressReason::kDelay);
        dropped[ref] = true;
        --kept;
      }
    }
    std::vector<std::pair<uint64_t, TupleRef>>().swap(keyed);
    // Survivors in ref order without sorting them.
    survivors_.reserve(kept);
    for (TupleRef ref = 0; ref < total; ++ref) {
      if (!dropped[ref]) survivors_.push_back(ref);
    }
  }

  void BuildWorkSet() {
    const size_t dims = schema_.size();
    work_.dims = dims;
    work_.qi.resize(survivors_.size() * dims);
    work_.ref = std::move(survivors_);
    // Distinct values: deduplicated whenever the buffer doubles, so the
    // buffer stays near the number of distinct values instead of one entry
    // per tuple.
    std::vector<SensitiveId>& values = work_.values;
    size_t compact_at = 1024;
    auto add_value = [&](SensitiveId v) {
      values.push_back(v);
      if (values.size() < compact_at) return;
      std::sort(values.begin(), values.end());
      values.erase(std::unique(values.begin(), values.end()), values.end());
      compact_at = std::max<size_t>(1024, 2 * values.size());
    };
    for (TupleRef ref : work_.ref) add_value(ResolveTuple(in_, ref).sensitive);
    if (params_.history_slots > 0) {
      // Values a new signature may take from its members' histories.
      for (const auto& [key, history] : in_.histories) {
        (void)key;
        for (const ValueCount& c : history) add_value(c.value);
      }
    }
    for (const auto& [key, sig] : in_.known_signatures) {
      (void)key;
      for (SensitiveId v : sig) add_value(v);
    }
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    const size_t n = work_.ref.size();
    work_.sensitive.resize(n);
    // Events and key prefixes are read here, in input order, because Finish
    // needs them in group order: gathered later they cost one or two cache
    // misses per tuple (a Tuple is 64 bytes and its key lives on the heap).
    events_.resize(n);
    if (params_.model == Model::kMInvariance) key_prefix_.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const Tuple& t = ResolveTuple(in_, work_.ref[i]);
      std::copy(t.qi.begin(), t.qi.end(), work_.qi.begin() + static_cast<ptrdiff_t>(i * dims));
      for (size_t a = 0; a < dims; ++a) {
        if (t.qi[a] != kUnknownQiCode) continue;
        // Partitioned as the domain's first value (so unknowns tend to share
        // groups); Finish widens the group's cover to the root.
        if (unknown_.empty()) unknown_.assign(n, 0);
        unknown_[i] |= uint64_t{1} << a;
        work_.qi[i * dims + a] = schema_.RootCover(a).lo;
      }
      work_.sensitive[i] = work_.Dense(t.sensitive);
      events_[i] = t.events;
      if (!key_prefix_.empty()) key_prefix_[i] = KeyPrefix(t.vehicle);
    }
  }

  // Vehicles with a stored signature: published under it (with counterfeits
  // where needed) when their value belongs to it, otherwise suppressed.
  void PlaceKnown() {
    std::map<Signature, std::vector<uint32_t>> buckets;
    const size_t n = work_.ref.size();
    known_.assign(n, false);
    if (in_.known_signatures.empty()) {
      fresh_.resize(n);
      for (uint32_t item = 0; item < n; ++item) fresh_[item] = item;
      return;
    }
    std::vector<bool> stored(n, false);
    // Items in key order meet the stored signatures (an ordered map) in one
    // merged walk; a tree lookup per item cost ~20 string compares, each a
    // cache miss, and dominated releases where most vehicles are known.
    std::vector<uint32_t> by_key(n);
    for (uint32_t item = 0; item < n; ++item) by_key[item] = item;
    std::sort(by_key.begin(), by_key.end(), [&](uint32_t x, uint32_t y) {
      if (key_prefix_[x] != key_prefix_[y]) return key_prefix_[x] < key_prefix_[y];
      return ResolveTuple(in_, work_.ref[x]).vehicle < ResolveTuple(in_, work_.ref[y]).vehicle;
    });
    auto it = in_.known_signatures.begin();
    for (uint32_t item : by_key) {
      const Tuple& t = ResolveTuple(in_, work_.ref[item]);
      while (it != in_.known_signatures.end() && it->first < t.vehicle) ++it;
      if (it == in_.known_signatures.end() || it->first != t.vehicle) continue;  // new vehicle
      stored[item] = true;
      if (it->second.size() < params_.m) {
        // Stored under a smaller m: no longer m-unique.
        Suppress(work_.ref[item], SuppressReason::kIneligible);
      } else if (!std::binary_search(it->second.begin(), it->second.end(), t.sensitive)) {
        Suppress(work_.ref[item], SuppressReason::kSignatureConflict);
      } else {
        buckets[it->second].push_back(item);
        known_[item] = true;
        ++known_placed_;
      }
    }
    std::vector<uint32_t>().swap(by_key);
    for (uint32_t item = 0; item < n; ++item) {
      if (!stored[item]) fresh_.push_back(item);
    }
    for (auto& [signature, items] : buckets) {
      GroupingSpec spec;
      spec.rule = GroupingRule::kSignatureSlots;
      spec.signature_size = static_cast<uint32_t>(signature.size());
      std::vector<uint32_t> dense;
      for (SensitiveId v : signature) dense.push_back(work_.Dense(v));
      for (ItemGroup& g : PartitionIntoGroups(schema_, work_, GatherRows(work_, items), spec)) {
        Building b;
        b.signature = dense;
        b.qi = std::move(g.qi);
        for (uint32_t v : dense) {
          bool present = false;
          for (uint32_t item : g.items) present |= work_.sensitive[item] == v;
          if (!present) b.counterfeits.push_back(v);
        }
        b.items = std::move(g.items);
        groups_.push_back(std::move(b));
      }
    }
  }

  double AddedLoss(const std::vector<int32_t>& lo, const std::vector<int32_t>& hi,
                   uint32_t item) const {
    double added = 0;
    for (size_t a = 0; a < work_.dims; ++a) {
      const int32_t v = work_.Qi(item, a);
      if (v >= lo[a] && v <= hi[a]) continue;
      added += schema_.Loss(a, schema_.Generalize(a, std::min(lo[a], v), std::max(hi[a], v))) -
               schema_.Loss(a, schema_.Generalize(a, lo[a], hi[a]));
    }
    return added;
  }

  // New vehicles take counterfeit slots of existing groups first: each such
  // tuple removes one counterfeit. Among the candidates with the slot's value
  // near the group in QI order, the one adding least loss wins.
  void FillFreeSlots() {
    std::vector<bool> wanted(work_.values.size(), false);
    bool any = false;
    for (const Building& b : groups_) {
      for (uint32_t v : b.counterfeits) wanted[v] = any = true;
    }
    if (!any || fresh_.empty()) return;
    auto lex = [this](uint32_t x, uint32_t y) {
      const int32_t* qx = &work_.qi[x * work_.dims];
      const int32_t* qy = &work_.qi[y * work_.dims];
      for (size_t a = 0; a < work_.dims; ++a) {
        if (qx[a] != qy[a]) return qx[a] < qy[a];
      }
      return x < y;
    };
    std::vector<Pool> pool(work_.values.size());
    std::vector<uint32_t> rest;
    for (uint32_t item : fresh_) {
      if (wanted[work_.sensitive[item]]) {
        pool[work_.sensitive[item]].items.push_back(item);
      } else {
        rest.push_back(item);
      }
    }
    for (Pool& p : pool) p.Sort(lex);
    for (Building& b : groups_) {
      if (b.counterfeits.empty()) continue;
      std::vector<int32_t> lo(work_.dims), hi(work_.dims);
      Bounds(b.items, &lo, &hi);
      std::vector<uint32_t> still;
      for (uint32_t v : b.counterfeits) {
        Pool& candidates = pool[v];
        if (candidates.left == 0) {
          still.push_back(v);
          continue;
        }
        const size_t it = candidates.LowerBound(b.items.front(), lex);
        size_t best = Pool::kNone;
        double best_loss = 0;
        auto consider = [&](size_t c) {
          const double loss = AddedLoss(lo, hi, candidates.items[c]);
          if (best == Pool::kNone || loss < best_loss) {
            best = c;
            best_loss = loss;
          }
        };
        size_t fwd = candidates.NextFrom(it);
        for (int i = 0; i < 4 && fwd != Pool::kNone; ++i, fwd = candidates.NextFrom(fwd + 1)) consider(fwd);
        size_t back = candidates.PrevBefore(it);
        for (int i = 0; i < 4 && back != Pool::kNone; ++i, back = candidates.PrevBefore(back)) consider(back);
        const uint32_t item = candidates.items[best];
        candidates.Take(best);
        b.items.push_back(item);
        for (size_t a = 0; a < work_.dims; ++a) {
          lo[a] = std::min(lo[a], work_.Qi(item, a));
          hi[a] = std::max(hi[a], work_.Qi(item, a));
        }
      }
      for (size_t a = 0; a < work_.dims; ++a) b.qi[a] = schema_.Generalize(a, lo[a], hi[a]);
      b.counterfeits = std::move(still);
    }
    for (Pool& p : pool) {
      for (size_t i = p.NextFrom(0); i != Pool::kNone; i = p.NextFrom(i + 1)) rest.push_back(p.items[i]);
    }
    std::sort(rest.begin(), rest.end());
    fresh_ = std::move(rest);
  }

  // The remaining new vehicles form new signatures of >= m distinct values.
  // First the fewest tuples of the most frequent values are held back until
  // every value is at most 1/m of the rest (the partition condition); which
  // ones is decided by a seeded hash of the vehicle key.
  void PlaceNew() {
    if (params_.history_min_events > 0) Learn();
    const uint32_t full = std::max<uint32_t>(params_.m, 1);
    // Real tuples each new group needs; counterfeits fill the other slots.
    // Counterfeit values must differ from the real ones, so they need a domain
    // of at least m values.
    const uint32_t m = work_.values.size() < full
                           ? full
                           : full - std::min(params_.new_group_counterfeits, full - 1);
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
    std::vector<size_t> keep(by_value.size());
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
    std::vector<std::vector<uint32_t>>().swap(by_value);
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
  const std::vector<ValueCount>& History(uint32_t item) const {
    static const std::vector<ValueCount> kNone;
    auto it = in_.histories.find(ResolveTuple(in_, work_.ref[item]).vehicle);
    return it == in_.histories.end() ? kNone : it->second;
  }

  // New vehicles with too little history wait while their delay allows, so
  // that their signature is chosen from what they did over several epochs.
  void Learn() {
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
  void AddHistorySlots(Building* b) const {
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

  void PlaceAnonymous() {
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

  void Bounds(const std::vector<uint32_t>& items, std::vector<int32_t>* lo,
              std::vector<int32_t>* hi) const {
    for (size_t a = 0; a < work_.dims; ++a) (*lo)[a] = (*hi)[a] = work_.Qi(items.front(), a);
    for (uint32_t item : items) {
      for (size_t a = 0; a < work_.dims; ++a) {
        (*lo)[a] = std::min((*lo)[a], work_.Qi(item, a));
        (*hi)[a] = std::max((*hi)[a], work_.Qi(item, a));
      }
    }
  }

  void Finish() {
    const size_t dims = work_.dims;
    MetricTable table;
    table.qi_count = dims;
    out_.groups.reserve(groups_.size());
    // Exact reservations: vectors grown by doubling held up to twice the
    // memory at the peak (see the benchmark's bytes per tuple).
    size_t grouped = 0;
    for (const Building& b : groups_) grouped += b.items.size();
    table.records.reserve(grouped + out_.suppressed.size());
    std::vector<FreshKey> fresh_keys;
    if (params_.model == Model::kMInvariance) fresh_keys.reserve(grouped - known_placed_);
    for (Building& b : groups_) {
      Group g;
      g.qi = std::move(b.qi);
      if (!unknown_.empty()) {
        uint64_t mask = 0;
        for (uint32_t item : b.items) mask |= unknown_[item];
        for (size_t a = 0; a < dims && mask != 0; ++a, mask >>= 1) {
          if (mask & 1) g.qi[a] = schema_.RootCover(a);
        }
      }
      double loss = 0;
      for (size_t a = 0; a < dims; ++a) loss += schema_.Loss(a, g.qi[a]);
      g.members.reserve(b.items.size());
      for (uint32_t item : b.items) {
        g.members.push_back(work_.ref[item]);
        table.records.push_back(MetricRecord{work_.ref[item], static_cast<int64_t>(out_.groups.size()), 0,
                                             work_.sensitive[item], loss, events_[item]});
      }
      std::sort(g.members.begin(), g.members.end());
      for (uint32_t v : b.signature) g.signature.push_back(work_.values[v]);
      for (uint32_t v : b.counterfeits) g.counterfeits.push_back(work_.values[v]);
      table.counterfeits += g.counterfeits.size();
      if (params_.model == Model::kMInvariance) {
        for (uint32_t item : b.items) {
          if (!known_[item]) {
            fresh_keys.push_back({key_prefix_[item], work_.ref[item],
                                  static_cast<uint32_t>(out_.groups.size())});
          }
        }
      }
      out_.groups.push_back(std::move(g));
      std::vector<uint32_t>().swap(b.items);
      std::vector<uint32_t>().swap(b.signature);
      std::vector<uint32_t>().swap(b.counterfeits);
    }
    std::vector<Building>().swap(groups_);
    std::vector<int32_t>().swap(work_.qi);
    std::vector<uint32_t>().swap(fresh_);
    std::vector<bool>().swap(known_);
    std::vector<uint32_t>().swap(events_);
    std::vector<uint64_t>().swap(key_prefix_);
    std::sort(out_.suppressed.begin(), out_.suppressed.end(),
              [](const Suppressed& x, const Suppressed& y) { return x.ref < y.ref; });
    std::sort(out_.waiting.begin(), out_.waiting.end(),
              [](const StillWaiting& x, const StillWaiting& y) { return x.ref < y.ref; });

    // Metrics use dense sensitive ids; suppressed tuples may carry values
    // outside the dense set, which only matters for their own (unused) value.
    for (const Suppressed& s : out_.suppressed) {
      const uint32_t dense = work_.Dense(ResolveTuple(in_, s.ref).sensitive);
      table.records.push_back(MetricRecord{s.ref, -1, static_cast<int>(s.reason),
                                           dense < work_.values.size() ? dense : 0, 0, 1});
    }
    table.groups = out_.groups.size();
    table.waiting = out_.waiting.size();
    bool ranked = !schema_.sensitive_rank.empty();
    bool leafed = schema_.sensitive_hierarchy != nullptr;
    for (SensitiveId v : work_.values) {
      ranked = ranked && v < schema_.sensitive_rank.size();
      leafed = leafed && v < schema_.sensitive_leaf.size();
    }
    if (ranked) {
      // Dense ranks keep the ordered EMD's domain equal to the rank table's.
      std::vector<int32_t> by_dense;
      for (SensitiveId v : work_.values) by_dense.push_back(schema_.sensitive_rank[v]);
      table.sensitive_rank = by_dense;
      RankDomain(&table);
    }
    if (leafed) {
      table.sensitive_hierarchy = schema_.sensitive_hierarchy.get();
      for (SensitiveId v : work_.values) table.sensitive_leaf.push_back(schema_.sensitive_leaf[v]);
    }
    out_.metrics = ComputeMetrics(table);
    // The metric records go before the new signatures are built: the
    // largest output must not meet them at the memory peak.
    MetricTable().records.swap(table.records);
    NewSignatures(&fresh_keys);
  }

  // out_.new_signatures in key order, from (key prefix, ref, group) of each
  // new vehicle. The keys are copied in ref order, i.e. reading the input
  // tuples and their heap-allocated keys sequentially, into slots fixed by
  // the key order; copying them in key order cost a cache and TLB miss or
  // two per tuple.
  void NewSignatures(std::vector<FreshKey>* fresh_keys) {
    std::vector<FreshKey>& keys = *fresh_keys;
    std::sort(keys.begin(), keys.end(), [&](const FreshKey& x, const FreshKey& y) {
      if (x.prefix != y.prefix) return x.prefix < y.prefix;
      return ResolveTuple(in_, x.ref).vehicle < ResolveTuple(in_, y.ref).vehicle;
    });
    constexpr uint32_t kNone = UINT32_MAX;
    std::vector<uint32_t> slot_of(in_.tuples.size() + in_.waiting.size(), kNone);
    for (size_t i = 0; i < keys.size(); ++i) slot_of[keys[i].ref] = static_cast<uint32_t>(i);
    out_.new_signatures.resize(keys.size());
    for (TupleRef ref = 0; ref < slot_of.size(); ++ref) {
      if (slot_of[ref] != kNone) out_.new_signatures[slot_of[ref]].first = ResolveTuple(in_, ref).vehicle;
    }
    std::vector<uint32_t>().swap(slot_of);
    for (size_t i = 0; i < keys.size(); ++i) {
      out_.new_signatures[i].second = out_.groups[keys[i].group].signature;
    }
    std::vector<FreshKey>().swap(keys);
  }

  // The ordered EMD needs ranks 0..domain-1; compress the ranks that occur.
  static void RankDomain(MetricTable* table) {
    std::vector<int32_t> sorted = table->sensitive_rank;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    for (int32_t& r : table->sensitive_rank) {
      r = static_cast<int32_t>(std::lower_bound(sorted.begin(), sorted.end(), r) - sorted.begin());
    }
  }

  const Schema& schema_;
  const ReleaseInput& in_;
  const ReleaseParams& params_;
  ReleaseOutput out_;
  std::vector<TupleRef> survivors_;  // Triage -> BuildWorkSet (moved into work_.ref)
  WorkSet work_;
  std::vector<uint32_t> fresh_;
  std::vector<bool> known_;   // by item: placed under a stored signature
  std::vector<uint32_t> events_;       // by item: Tuple::events
  std::vector<uint64_t> key_prefix_;   // by item: KeyPrefix of the key (m-invariance)
  std::vector<uint64_t> unknown_;      // by item: bit a = QI a unknown; empty when none is
  size_t known_placed_ = 0;
  std::vector<Building> groups_;
};

}  // namespace

ReleaseOutput ComputeRelease(const Schema& schema, const ReleaseInput& input) {
  return ReleaseBuilder(schema, input).Run();
}

}  // namespace vanon
