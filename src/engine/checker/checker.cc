#include "vanon/engine/checker.h"

#include <algorithm>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <unordered_map>

namespace vanon {

namespace {

// Own resolution of tuple refs; deliberately not the engine's helper.
struct Pending {
  const Tuple* tuple;
  uint64_t first_release;
  bool current;
};

std::vector<Pending> Flatten(const ReleaseInput& in) {
  std::vector<Pending> all;
  for (const Tuple& t : in.tuples) all.push_back({&t, in.release_id, true});
  for (const WaitingTuple& w : in.waiting) all.push_back({&w.tuple, w.first_release, false});
  return all;
}

// Per vehicle, what decides whether a delay suppression was due: a scan of
// all tuples per suppressed tuple was quadratic, and at 100,000 vehicles it
// was a seventh of the service's CPU (issue 18).
struct VehicleTuples {
  size_t current = 0;
  uint64_t latest_first_release = 0;
};

std::unordered_map<std::string_view, VehicleTuples> IndexForDelay(const std::vector<Pending>& all) {
  std::unordered_map<std::string_view, VehicleTuples> index;
  index.reserve(all.size());
  for (const Pending& t : all) {
    VehicleTuples& v = index[t.tuple->vehicle];
    if (t.current) ++v.current;
    v.latest_first_release = std::max(v.latest_first_release, t.first_release);
  }
  return index;
}

std::string Show(const Signature& s) {
  std::string out = "{";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "}";
}

// Does the printed label stand for a set containing the raw code? Categorical:
// the label names the leaf or one of its ancestors. Numeric: "v" or "[lo,hi]".
bool LabelCovers(const QiAttribute& attr, Cover cover, int32_t raw) {
  if (raw == kUnknownQiCode) {
    // Only the whole domain covers an unknown value.
    if (attr.IsCategorical()) return cover.lo == 0 && cover.hi == attr.hierarchy->LeafCount() - 1;
    return cover.lo <= attr.numeric.min && cover.hi >= attr.numeric.max;
  }
  if (attr.IsCategorical()) {
    const CategoricalHierarchy& h = *attr.hierarchy;
    if (raw < 0 || raw >= h.LeafCount()) return false;
    if (raw < cover.lo || raw > cover.hi) return false;
    // The cover must be exactly some ancestor's leaf set.
    for (int32_t n = h.LeafNode(raw); n >= 0; n = h.Parent(n)) {
      if (h.LeafBegin(n) == cover.lo && h.LeafEnd(n) == cover.hi + 1) return true;
    }
    return false;
  }
  return cover.lo <= raw && raw <= cover.hi;
}

}  // namespace

std::vector<std::string> ReleaseChecker::Check(const ReleaseInput& in, const ReleaseOutput& out) {
  std::vector<std::string> bad;
  auto report = [&](const std::string& what) {
    bad.push_back("release " + std::to_string(in.release_id) + ": " + what);
  };
  const std::vector<Pending> all = Flatten(in);
  const ReleaseParams& p = in.params;
  const bool minv = p.model == Model::kMInvariance;

  // State handed over from the previous release.
  std::multimap<std::string, uint64_t> got_waiting;
  for (const WaitingTuple& w : in.waiting) got_waiting.emplace(w.tuple.vehicle, w.first_release);
  if (started_ && got_waiting != expected_waiting_) {
    report("waiting tuples in the input differ from those the previous release left waiting");
  }
  for (const auto& [vehicle, sig] : in.known_signatures) {
    auto it = signatures_.find(vehicle);
    if (it == signatures_.end()) {
      if (started_) report("input claims a stored signature never published for a vehicle");
      signatures_.emplace(vehicle, sig);
      last_published_.emplace(vehicle, in.release_id);
    } else if (it->second != sig) {
      report("stored signature " + Show(sig) + " differs from published " + Show(it->second));
    }
  }
  if (started_ && minv) {
    // A signature may leave the state only once its vehicle has not been
    // published for more than the horizon; the vehicle is then new again.
    for (auto it = signatures_.begin(); it != signatures_.end();) {
      if (in.known_signatures.count(it->first)) {
        ++it;
        continue;
      }
      const uint64_t last = last_published_[it->first];
      if (p.signature_horizon > 0 && in.release_id > last + p.signature_horizon) {
        last_published_.erase(it->first);
        it = signatures_.erase(it);
      } else {
        report("a published signature is missing from the input");
        ++it;
      }
    }
  }
  const auto known_before = signatures_;

  // Every tuple exactly once.
  std::vector<int> seen(all.size(), 0);
  auto mark = [&](TupleRef ref, const char* where) {
    if (ref >= all.size()) {
      report(std::string("reference out of range in ") + where);
      return false;
    }
    ++seen[ref];
    return true;
  };

  std::map<std::string, Signature> first_time;
  uint64_t counterfeits = 0, published = 0;
  for (size_t gi = 0; gi < out.groups.size(); ++gi) {
    const Group& g = out.groups[gi];
    const std::string where = "group " + std::to_string(gi) + ": ";
    std::set<std::string> vehicles;
    std::vector<SensitiveId> values;
    for (TupleRef ref : g.members) {
      if (!mark(ref, "group")) continue;
      const Tuple& t = *all[ref].tuple;
      if (!vehicles.insert(t.vehicle).second) report(where + "a vehicle appears twice");
      values.push_back(t.sensitive);
      if (t.qi.size() != schema_.size() || g.qi.size() != schema_.size()) {
        report(where + "wrong number of QIs");
        continue;
      }
      for (size_t a = 0; a < schema_.size(); ++a) {
        if (!LabelCovers(schema_.attribute(a), g.qi[a], t.qi[a])) {
          report(where + "label of '" + schema_.attribute(a).name + "' does not cover a member");
        }
      }
    }
    published += g.members.size();
    counterfeits += g.counterfeits.size();
    std::vector<SensitiveId> slots = values;
    slots.insert(slots.end(), g.counterfeits.begin(), g.counterfeits.end());
    std::sort(slots.begin(), slots.end());
    std::vector<SensitiveId> distinct = slots;
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    if (minv) {
      if (distinct.size() != slots.size()) report(where + "two tuples share a sensitive value");
      if (slots.size() < p.m) report(where + "fewer than m tuples");
      if (slots != g.signature) report(where + "signature is not the set of published values");
      for (TupleRef ref : g.members) {
        if (ref >= all.size()) continue;
        const std::string& v = all[ref].tuple->vehicle;
        auto it = signatures_.find(v);
        if (it == signatures_.end()) {
          signatures_.emplace(v, slots);
          first_time.emplace(v, slots);
        } else if (it->second != slots) {
          report(where + "signature changed from " + Show(it->second) + " to " + Show(slots));
        }
        last_published_[v] = in.release_id;
      }
    } else {
      if (!g.counterfeits.empty()) report(where + "counterfeits under k-anonymity");
      if (vehicles.size() < p.k) report(where + "fewer than k vehicles");
      if (distinct.size() < p.l) report(where + "fewer than l distinct values");
    }
  }

  std::optional<std::unordered_map<std::string_view, VehicleTuples>> delay_index;
  std::vector<uint64_t> by_reason(kSuppressReasonCount, 0);
  for (const Suppressed& s : out.suppressed) {
    if (!mark(s.ref, "suppressed")) continue;
    ++by_reason[static_cast<size_t>(s.reason)];
    const Pending& t = all[s.ref];
    if (s.reason == SuppressReason::kSignatureConflict) {
      auto it = known_before.find(t.tuple->vehicle);
      if (!minv || it == known_before.end() ||
          std::binary_search(it->second.begin(), it->second.end(), t.tuple->sensitive)) {
        report("signature conflict claimed for a tuple that fits its signature");
      }
    } else if (s.reason == SuppressReason::kDelay) {
      if (!delay_index) delay_index = IndexForDelay(all);
      const VehicleTuples& v = delay_index->at(t.tuple->vehicle);
      // Another tuple of the vehicle is current, or waits since later.
      const bool superseded = v.current - (t.current ? 1 : 0) > 0 || v.latest_first_release > t.first_release;
      if (!superseded && in.release_id < t.first_release + p.max_delay) {
        report("delay suppression before the delay ran out");
      }
    }
  }
  std::multimap<std::string, uint64_t> now_waiting;
  for (const StillWaiting& w : out.waiting) {
    if (!mark(w.ref, "waiting")) continue;
    const Pending& t = all[w.ref];
    if (w.first_release != t.first_release) report("waiting tuple lost its first release");
    if (in.release_id >= t.first_release + p.max_delay) report("tuple still waiting after its delay");
    if (known_before.count(t.tuple->vehicle)) report("a vehicle with a signature is left waiting");
    now_waiting.emplace(t.tuple->vehicle, t.first_release);
  }
  for (size_t i = 0; i < all.size(); ++i) {
    if (seen[i] == 0) report("tuple " + std::to_string(i) + " is unaccounted for");
    if (seen[i] > 1) report("tuple " + std::to_string(i) + " is accounted for twice");
  }

  std::map<std::string, Signature> claimed(out.new_signatures.begin(), out.new_signatures.end());
  if (minv && claimed != first_time) report("new signatures differ from first publications");
  if (out.metrics.counterfeits != counterfeits) report("metrics miscount counterfeits");
  if (out.metrics.published != published) report("metrics miscount published tuples");
  for (int r = 0; r < kSuppressReasonCount; ++r) {
    if (out.metrics.suppressed_by_reason[static_cast<size_t>(r)] != by_reason[static_cast<size_t>(r)]) {
      report("metrics miscount suppression reason " + std::to_string(r));
    }
  }
  expected_waiting_ = std::move(now_waiting);
  started_ = true;
  return bad;
}

}  // namespace vanon
