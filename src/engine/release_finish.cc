// ComputeRelease, last step: published covers, metrics, and the new
// signatures in key order.
#include "release_builder.h"

#include <algorithm>
#include <cstdint>

#include "partitioner.h"

namespace vanon::engine::internal {

void ReleaseBuilder::Finish() {
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
  for (Building& b : groups_) OutputGroup(&b, &table, &fresh_keys);
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
    table.records.push_back(
        MetricRecord{s.ref, -1, static_cast<int>(s.reason), dense < work_.values.size() ? dense : 0, 0, 1});
  }
  table.groups = out_.groups.size();
  table.waiting = out_.waiting.size();
  SensitiveDomain(&table);
  out_.metrics = ComputeMetrics(table);
  // The metric records go before the new signatures are built: the
  // largest output must not meet them at the memory peak.
  MetricTable().records.swap(table.records);
  NewSignatures(&fresh_keys);
}

// Moves one built group into the output: its covers (widened to the root
// where a member's QI is unknown), members, signature and counterfeits, one
// metric record per member, and the new vehicles' places for NewSignatures.
void ReleaseBuilder::OutputGroup(Building* building, MetricTable* table, std::vector<FreshKey>* fresh_keys) {
  Building& b = *building;
  const size_t dims = work_.dims;
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
    table->records.push_back(MetricRecord{work_.ref[item], static_cast<int64_t>(out_.groups.size()), 0,
                                          work_.sensitive[item], loss, events_[item]});
  }
  std::sort(g.members.begin(), g.members.end());
  for (uint32_t v : b.signature) g.signature.push_back(work_.values[v]);
  for (uint32_t v : b.counterfeits) g.counterfeits.push_back(work_.values[v]);
  table->counterfeits += g.counterfeits.size();
  if (params_.model == Model::kMInvariance) {
    for (uint32_t item : b.items) {
      if (!known_[item]) {
        fresh_keys->push_back({key_prefix_[item], work_.ref[item], static_cast<uint32_t>(out_.groups.size())});
      }
    }
  }
  out_.groups.push_back(std::move(g));
  std::vector<uint32_t>().swap(b.items);
  std::vector<uint32_t>().swap(b.signature);
  std::vector<uint32_t>().swap(b.counterfeits);
}

// The metric table's view of the sensitive domain: ranks for the ordered
// EMD and leaves for the hierarchical one, when every value has one.
void ReleaseBuilder::SensitiveDomain(MetricTable* table) const {
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
    table->sensitive_rank = by_dense;
    RankDomain(table);
  }
  if (leafed) {
    table->sensitive_hierarchy = schema_.sensitive_hierarchy.get();
    for (SensitiveId v : work_.values) table->sensitive_leaf.push_back(schema_.sensitive_leaf[v]);
  }
}

// out_.new_signatures in key order, from (key prefix, ref, group) of each
// new vehicle. The keys are copied in ref order, i.e. reading the input
// tuples and their heap-allocated keys sequentially, into slots fixed by
// the key order; copying them in key order cost a cache and TLB miss or
// two per tuple.
void ReleaseBuilder::NewSignatures(std::vector<FreshKey>* fresh_keys) {
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
void ReleaseBuilder::RankDomain(MetricTable* table) {
  std::vector<int32_t> sorted = table->sensitive_rank;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  for (int32_t& r : table->sensitive_rank) {
    r = static_cast<int32_t>(std::lower_bound(sorted.begin(), sorted.end(), r) - sorted.begin());
  }
}

}  // namespace vanon::engine::internal
