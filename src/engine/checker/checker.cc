#include "vanon/engine/checker.h"

#include <algorithm>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <unordered_map>

namespace vanon::engine {

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

// One Check(): the input and output, the findings, and what the steps
// hand to each other.
struct ReleaseChecker::Pass {
  Pass(ReleaseChecker& checker, const ReleaseInput& input, const ReleaseOutput& output)
      : c(checker),
        in(input),
        out(output),
        all(Flatten(input)),
        p(input.params),
        minv(p.model == Model::kMInvariance),
        seen(all.size(), 0),
        by_reason(kSuppressReasonCount, 0) {}

  void Report(const std::string& what) { bad.push_back("release " + std::to_string(in.release_id) + ": " + what); }
  bool Mark(TupleRef ref, const char* where) {
    if (ref >= all.size()) {
      Report(std::string("reference out of range in ") + where);
      return false;
    }
    ++seen[ref];
    return true;
  }
  void Handover();
  void CheckGroup(size_t gi);
  void CheckMInvariantGroup(const Group& g, const std::string& where, const std::vector<SensitiveId>& slots);
  void CheckSuppressed();
  void CheckWaiting();
  void CheckTotals();

  ReleaseChecker& c;
  const ReleaseInput& in;
  const ReleaseOutput& out;
  const std::vector<Pending> all;
  const ReleaseParams& p;
  const bool minv;
  std::vector<std::string> bad;
  std::map<std::string, Signature, std::less<>> known_before;
  std::vector<int> seen;  // per tuple: how often the output accounts for it
  std::map<std::string, Signature> first_time;
  uint64_t counterfeits = 0, published = 0;
  std::vector<uint64_t> by_reason;
};

// State handed over from the previous release: waiting tuples, stored
// signatures, and signatures dropped only past the horizon.
void ReleaseChecker::Pass::Handover() {
  std::multimap<std::string, uint64_t> got_waiting;
  for (const WaitingTuple& w : in.waiting) got_waiting.emplace(w.tuple.vehicle, w.first_release);
  if (c.started_ && got_waiting != c.expected_waiting_) {
    Report("waiting tuples in the input differ from those the previous release left waiting");
  }
  for (const auto& [vehicle, sig] : in.known_signatures) {
    auto it = c.signatures_.find(vehicle);
    if (it == c.signatures_.end()) {
      if (c.started_) Report("input claims a stored signature never published for a vehicle");
      c.signatures_.emplace(vehicle, sig);
      c.last_published_.emplace(vehicle, in.release_id);
    } else if (it->second != sig) {
      Report("stored signature " + Show(sig) + " differs from published " + Show(it->second));
    }
  }
  if (c.started_ && minv) {
    // A signature may leave the state only once its vehicle has not been
    // published for more than the horizon; the vehicle is then new again.
    for (auto it = c.signatures_.begin(); it != c.signatures_.end();) {
      if (in.known_signatures.count(it->first)) {
        ++it;
        continue;
      }
      const uint64_t last = c.last_published_[it->first];
      if (p.signature_horizon > 0 && in.release_id > last + p.signature_horizon) {
        c.last_published_.erase(it->first);
        it = c.signatures_.erase(it);
      } else {
        Report("a published signature is missing from the input");
        ++it;
      }
    }
  }
  known_before = c.signatures_;
}

void ReleaseChecker::Pass::CheckGroup(size_t gi) {
  const Group& g = out.groups[gi];
  const std::string where = "group " + std::to_string(gi) + ": ";
  const Schema& schema = c.schema_;
  std::set<std::string> vehicles;
  std::vector<SensitiveId> values;
  for (TupleRef ref : g.members) {
    if (!Mark(ref, "group")) continue;
    const Tuple& t = *all[ref].tuple;
    if (!vehicles.insert(t.vehicle).second) Report(where + "a vehicle appears twice");
    values.push_back(t.sensitive);
    if (t.qi.size() != schema.size() || g.qi.size() != schema.size()) {
      Report(where + "wrong number of QIs");
      continue;
    }
    for (size_t a = 0; a < schema.size(); ++a) {
      if (!LabelCovers(schema.attribute(a), g.qi[a], t.qi[a])) {
        Report(where + "label of '" + schema.attribute(a).name + "' does not cover a member");
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
    if (distinct.size() != slots.size()) Report(where + "two tuples share a sensitive value");
    CheckMInvariantGroup(g, where, slots);
  } else {
    if (!g.counterfeits.empty()) Report(where + "counterfeits under k-anonymity");
    if (vehicles.size() < p.k) Report(where + "fewer than k vehicles");
    if (distinct.size() < p.l) Report(where + "fewer than l distinct values");
  }
}

// At least m slots, the signature is the set of published values, and every
// member keeps the signature it was first published with.
void ReleaseChecker::Pass::CheckMInvariantGroup(const Group& g, const std::string& where,
                                                const std::vector<SensitiveId>& slots) {
  if (slots.size() < p.m) Report(where + "fewer than m tuples");
  if (slots != g.signature) Report(where + "signature is not the set of published values");
  for (TupleRef ref : g.members) {
    if (ref >= all.size()) continue;
    const std::string& v = all[ref].tuple->vehicle;
    auto it = c.signatures_.find(v);
    if (it == c.signatures_.end()) {
      c.signatures_.emplace(v, slots);
      first_time.emplace(v, slots);
    } else if (it->second != slots) {
      Report(where + "signature changed from " + Show(it->second) + " to " + Show(slots));
    }
    c.last_published_[v] = in.release_id;
  }
}

// A suppression's reason must hold: a signature conflict only for a value
// outside the vehicle's signature, a delay only once the delay ran out (or
// the tuple was superseded).
void ReleaseChecker::Pass::CheckSuppressed() {
  std::optional<std::unordered_map<std::string_view, VehicleTuples>> delay_index;
  for (const Suppressed& s : out.suppressed) {
    if (!Mark(s.ref, "suppressed")) continue;
    ++by_reason[static_cast<size_t>(s.reason)];
    const Pending& t = all[s.ref];
    if (s.reason == SuppressReason::kSignatureConflict) {
      auto it = known_before.find(t.tuple->vehicle);
      if (!minv || it == known_before.end() ||
          std::binary_search(it->second.begin(), it->second.end(), t.tuple->sensitive)) {
        Report("signature conflict claimed for a tuple that fits its signature");
      }
    } else if (s.reason == SuppressReason::kDelay) {
      if (!delay_index) delay_index = IndexForDelay(all);
      const VehicleTuples& v = delay_index->at(t.tuple->vehicle);
      // Another tuple of the vehicle is current, or waits since later.
      const bool superseded = v.current - (t.current ? 1 : 0) > 0 || v.latest_first_release > t.first_release;
      if (!superseded && in.release_id < t.first_release + p.max_delay) {
        Report("delay suppression before the delay ran out");
      }
    }
  }
}

void ReleaseChecker::Pass::CheckWaiting() {
  std::multimap<std::string, uint64_t> now_waiting;
  for (const StillWaiting& w : out.waiting) {
    if (!Mark(w.ref, "waiting")) continue;
    const Pending& t = all[w.ref];
    if (w.first_release != t.first_release) Report("waiting tuple lost its first release");
    if (in.release_id >= t.first_release + p.max_delay) Report("tuple still waiting after its delay");
    if (known_before.count(t.tuple->vehicle)) Report("a vehicle with a signature is left waiting");
    now_waiting.emplace(t.tuple->vehicle, t.first_release);
  }
  c.expected_waiting_ = std::move(now_waiting);
}

// Every tuple exactly once; new signatures and metrics as published.
void ReleaseChecker::Pass::CheckTotals() {
  for (size_t i = 0; i < all.size(); ++i) {
    if (seen[i] == 0) Report("tuple " + std::to_string(i) + " is unaccounted for");
    if (seen[i] > 1) Report("tuple " + std::to_string(i) + " is accounted for twice");
  }
  std::map<std::string, Signature> claimed(out.new_signatures.begin(), out.new_signatures.end());
  if (minv && claimed != first_time) Report("new signatures differ from first publications");
  if (out.metrics.counterfeits != counterfeits) Report("metrics miscount counterfeits");
  if (out.metrics.published != published) Report("metrics miscount published tuples");
  for (int r = 0; r < kSuppressReasonCount; ++r) {
    if (out.metrics.suppressed_by_reason[static_cast<size_t>(r)] != by_reason[static_cast<size_t>(r)]) {
      Report("metrics miscount suppression reason " + std::to_string(r));
    }
  }
}

std::vector<std::string> ReleaseChecker::Check(const ReleaseInput& in, const ReleaseOutput& out) {
  Pass pass(*this, in, out);
  pass.Handover();
  for (size_t gi = 0; gi < out.groups.size(); ++gi) pass.CheckGroup(gi);
  pass.CheckSuppressed();
  pass.CheckWaiting();
  pass.CheckTotals();
  started_ = true;
  return std::move(pass.bad);
}

}  // namespace vanon::engine
