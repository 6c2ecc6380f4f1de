// ComputeRelease under m-invariance: vehicles with a stored signature, then
// new vehicles into the counterfeit slots of those groups.
#include "release_builder.h"

#include <algorithm>
#include <map>

#include "partitioner.h"

namespace vanon::engine::internal {

// Vehicles with a stored signature: published under it (with counterfeits
// where needed) when their value belongs to it, otherwise suppressed.
void ReleaseBuilder::PlaceKnown() {
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
  for (auto& [signature, items] : buckets) GroupBucket(signature, items);
}

// Groups the items of one signature bucket (every value of each item is in
// the signature): as many groups as the most frequent value needs, each
// with the whole signature, counterfeits in the empty slots.
void ReleaseBuilder::GroupBucket(const Signature& signature, const std::vector<uint32_t>& items) {
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

double ReleaseBuilder::AddedLoss(const std::vector<int32_t>& lo, const std::vector<int32_t>& hi, uint32_t item) const {
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
void ReleaseBuilder::FillFreeSlots() {
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

void ReleaseBuilder::Bounds(const std::vector<uint32_t>& items, std::vector<int32_t>* lo,
                            std::vector<int32_t>* hi) const {
  for (size_t a = 0; a < work_.dims; ++a) (*lo)[a] = (*hi)[a] = work_.Qi(items.front(), a);
  for (uint32_t item : items) {
    for (size_t a = 0; a < work_.dims; ++a) {
      (*lo)[a] = std::min((*lo)[a], work_.Qi(item, a));
      (*hi)[a] = std::max((*hi)[a], work_.Qi(item, a));
    }
  }
}

}  // namespace vanon::engine::internal
