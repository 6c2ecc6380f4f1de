// Internal: the builder behind ComputeRelease (release.cc), one file per
// step: triage (release_triage.cc), vehicles with a stored signature and free
// slots (release_known.cc), new signatures and k-anonymity (release_new.cc),
// covers, metrics and new signatures in the output (release_finish.cc).
#ifndef VANON_SRC_ENGINE_RELEASE_BUILDER_H_
#define VANON_SRC_ENGINE_RELEASE_BUILDER_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "vanon/engine/metrics.h"
#include "vanon/engine/release.h"
#include "work_set.h"

namespace vanon::engine::internal {

// Stable 64-bit mix of the seed and a vehicle key (release.cc).
uint64_t KeyHash(uint64_t seed, const std::string& key);
// The first 8 bytes of a key, big-endian and zero-padded (release.cc).
uint64_t KeyPrefix(const std::string& key);

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

// Per new vehicle, its values as (dense id, share of its history's events),
// most frequent first, flat: vehicle i's are pairs[begin[i], begin[i + 1]).
// (A vector per vehicle cost a heap block each, 40% more working memory in
// a release of a million new vehicles.)
struct ValueProfiles {
  std::vector<uint32_t> begin{0};
  std::vector<std::pair<uint32_t, double>> pairs;
  std::span<const std::pair<uint32_t, double>> Of(size_t i) const {
    return {pairs.data() + begin[i], pairs.data() + begin[i + 1]};
  }
};

class ReleaseBuilder {
 public:
  ReleaseBuilder(const Schema& schema, const ReleaseInput& input)
      : schema_(schema), in_(input), params_(input.params) {}

  ReleaseOutput Run();

 private:
  void Suppress(TupleRef ref, SuppressReason reason) { out_.suppressed.push_back({ref, reason}); }
  void WaitOrSuppress(TupleRef ref);
  void Triage();
  void BuildWorkSet();
  void PlaceKnown();
  double AddedLoss(const std::vector<int32_t>& lo, const std::vector<int32_t>& hi, uint32_t item) const;
  void GroupBucket(const Signature& signature, const std::vector<uint32_t>& items);
  void FillFreeSlots();
  void Bounds(const std::vector<uint32_t>& items, std::vector<int32_t>* lo, std::vector<int32_t>* hi) const;
  void PlaceNew();
  std::vector<uint32_t> KeepGroupable(uint32_t m, std::vector<size_t>* keep);
  void FormNewGroups(std::vector<uint32_t> kept, const std::vector<size_t>& keep, uint32_t m, uint32_t full);
  const std::vector<ValueCount>& History(uint32_t item) const;
  void Learn();
  // Shared signatures (release_shared.cc).
  void PlaceShared();
  std::vector<Signature> HeldSignatures(size_t size, size_t want) const;
  std::vector<Signature> SharedFamily(const ValueProfiles& profiles) const;
  void AppendProfile(uint32_t item, ValueProfiles* profiles) const;
  void AddHistorySlots(Building* b) const;
  void PlaceAnonymous();
  void Finish();
  void OutputGroup(Building* building, MetricTable* table, std::vector<FreshKey>* fresh_keys);
  void SensitiveDomain(MetricTable* table) const;
  void NewSignatures(std::vector<FreshKey>* fresh_keys);
  static void RankDomain(MetricTable* table);

  const Schema& schema_;
  const ReleaseInput& in_;
  const ReleaseParams& params_;
  ReleaseOutput out_;
  std::vector<TupleRef> survivors_;  // Triage -> BuildWorkSet (moved into work_.ref)
  WorkSet work_;
  std::vector<uint32_t> fresh_;
  std::vector<bool> known_;           // by item: placed under a stored signature
  std::vector<uint32_t> events_;      // by item: Tuple::events
  std::vector<uint64_t> key_prefix_;  // by item: KeyPrefix of the key (m-invariance)
  std::vector<uint64_t> unknown_;     // by item: bit a = QI a unknown; empty when none is
  size_t known_placed_ = 0;
  std::vector<Building> groups_;
};

}  // namespace vanon::engine::internal

#endif  // VANON_SRC_ENGINE_RELEASE_BUILDER_H_
