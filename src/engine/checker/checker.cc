#include "vanon/engine/checker.h"

#include <algorithm>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <unordered_map>

namespace vanon::engine {

namespace {

// Sorts a list that usually arrives as one or two sorted runs (waiting
// tuples are kept in key order; a release leaves this epoch's tuples and
// older ones waiting, each run in key order) in linear time then. The
// checker does not rely on that order: any other input is sorted whole.
void SortWaiting(std::vector<std::pair<std::string, uint64_t>>* list) {  // a WaitingList
  const auto mid = std::is_sorted_until(list->begin(), list->end());
  if (mid == list->end()) return;
  if (std::is_sorted(mid, list->end())) {
    std::inplace_merge(list->begin(), mid, list->end());
  } else {
    std::sort(list->begin(), list->end());
  }
}

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
// was a seventh of the service's CPU.
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

// One Verify(): the input and output, the findings, and what the steps
// hand to each other. It reads the checker and writes only the verdict.
struct ReleaseChecker::Pass {
  Pass(const ReleaseChecker& checker, const ReleaseInput& input, const ReleaseOutput& output, Verdict* verdict)
      : c(checker),
        in(input),
        out(output),
        v(*verdict),
        bad(verdict->violations_),
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
  // A vehicle's signature as of before this release: what the input claimed
  // for a vehicle new to the checker, else the checker's, unless forgotten.
  const Signature* KnownBefore(const std::string& vehicle) const {
    if (auto it = v.signatures_.find(vehicle); it != v.signatures_.end()) return &it->second;
    if (forgotten.count(vehicle)) return nullptr;
    auto it = c.signatures_.find(vehicle);
    return it == c.signatures_.end() ? nullptr : &it->second;
  }
  // The same, or the signature it is first published with in this release.
  const Signature* Known(const std::string& vehicle) const {
    if (auto it = first_time.find(vehicle); it != first_time.end()) return &it->second;
    return KnownBefore(vehicle);
  }
  void Handover();
  void CheckMissing(const std::string& vehicle);
  void ForgetPastHorizon();
  void CheckGroup(size_t gi);
  void CheckMInvariantGroup(const Group& g, const std::string& where, const std::vector<SensitiveId>& slots);
  void CheckSuppressed();
  void CheckWaiting();
  void CheckTotals();

  const ReleaseChecker& c;
  const ReleaseInput& in;
  const ReleaseOutput& out;
  Verdict& v;
  std::vector<std::string>& bad;
  const std::vector<Pending> all;
  const ReleaseParams& p;
  const bool minv;
  std::set<std::string> forgotten;  // past the horizon: new again
  std::vector<int> seen;            // per tuple: how often the output accounts for it
  ByVehicle<Signature> first_time;
  uint64_t counterfeits = 0, published = 0;
  std::vector<uint64_t> by_reason;
};

// A vehicle the checker knows and the input claims no signature for: its
// signature may leave the state only once it has not been published for
// more than the horizon; the vehicle is then new again.
void ReleaseChecker::Pass::CheckMissing(const std::string& vehicle) {
  auto last = c.last_published_.find(vehicle);
  const uint64_t at = last == c.last_published_.end() ? 0 : last->second;
  if (p.signature_horizon > 0 && in.release_id > at + p.signature_horizon) {
    forgotten.insert(vehicle);
  } else {
    Report("a published signature is missing from the input");
  }
}

// With inputs that hold only their vehicles' signatures, the memory of
// vehicles long gone is dropped now and then, well after their signatures
// left the state (which may keep them up to a horizon/64 longer).
void ReleaseChecker::Pass::ForgetPastHorizon() {
  if (p.signature_horizon == 0 || in.release_id % 64 != 0) return;
  for (const auto& [vehicle, last] : c.last_published_) {
    if (in.release_id > last + 2 * p.signature_horizon + 128 && !in.known_signatures.count(vehicle)) {
      forgotten.insert(vehicle);
    }
  }
}

// State handed over from the previous release: waiting tuples, stored
// signatures, and signatures dropped only past the horizon.
void ReleaseChecker::Pass::Handover() {
  WaitingList got_waiting;
  got_waiting.reserve(in.waiting.size());
  for (const WaitingTuple& w : in.waiting) got_waiting.emplace_back(w.tuple.vehicle, w.first_release);
  std::sort(got_waiting.begin(), got_waiting.end());
  if (c.started_ && got_waiting != c.expected_waiting_) {
    Report("waiting tuples in the input differ from those the previous release left waiting");
  }
  for (const auto& [vehicle, sig] : in.known_signatures) {
    auto it = c.signatures_.find(vehicle);
    if (it == c.signatures_.end()) {
      if (c.started_) Report("input claims a stored signature never published for a vehicle");
      v.signatures_.emplace(vehicle, sig);
      v.last_published_.emplace(vehicle, in.release_id);
    } else if (it->second != sig) {
      Report("stored signature " + Show(sig) + " differs from published " + Show(it->second));
    }
  }
  if (!c.started_ || !minv) return;
  if (c.scope_ == Scope::kAllSignatures) {
    for (const auto& [vehicle, sig] : c.signatures_) {
      if (!in.known_signatures.count(vehicle)) CheckMissing(vehicle);
    }
    return;
  }
  // The input's vehicles with a published signature the input lacks, each
  // once, in key order. Only those few are sorted: sorting every vehicle
  // of a large fleet was most of this step.
  std::vector<const std::string*> missing;
  for (const Pending& t : all) {
    auto it = c.signatures_.find(t.tuple->vehicle);
    if (it != c.signatures_.end() && !in.known_signatures.count(it->first)) missing.push_back(&it->first);
  }
  std::sort(missing.begin(), missing.end(), [](const std::string* a, const std::string* b) { return *a < *b; });
  missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
  for (const std::string* vehicle : missing) CheckMissing(*vehicle);
  ForgetPastHorizon();
}

void ReleaseChecker::Pass::CheckGroup(size_t gi) {
  const Group& g = out.groups[gi];
  const std::string where = "group " + std::to_string(gi) + ": ";
  const Schema& schema = c.schema_;
  std::vector<std::string_view> vehicles;
  std::vector<SensitiveId> values;
  for (TupleRef ref : g.members) {
    if (!Mark(ref, "group")) continue;
    const Tuple& t = *all[ref].tuple;
    vehicles.push_back(t.vehicle);
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
  std::sort(vehicles.begin(), vehicles.end());
  for (size_t i = 1; i < vehicles.size(); ++i) {
    if (vehicles[i] == vehicles[i - 1]) Report(where + "a vehicle appears twice");
  }
  vehicles.erase(std::unique(vehicles.begin(), vehicles.end()), vehicles.end());
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
    const std::string& vehicle = all[ref].tuple->vehicle;
    if (const Signature* known = Known(vehicle); known == nullptr) {
      first_time.emplace(vehicle, slots);
    } else if (*known != slots) {
      Report(where + "signature changed from " + Show(*known) + " to " + Show(slots));
    }
    v.last_published_[vehicle] = in.release_id;
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
      const Signature* known = KnownBefore(t.tuple->vehicle);
      if (!minv || known == nullptr || std::binary_search(known->begin(), known->end(), t.tuple->sensitive)) {
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
  WaitingList now_waiting;
  now_waiting.reserve(out.waiting.size());
  for (const StillWaiting& w : out.waiting) {
    if (!Mark(w.ref, "waiting")) continue;
    const Pending& t = all[w.ref];
    if (w.first_release != t.first_release) Report("waiting tuple lost its first release");
    if (in.release_id >= t.first_release + p.max_delay) Report("tuple still waiting after its delay");
    if (KnownBefore(t.tuple->vehicle) != nullptr) Report("a vehicle with a signature is left waiting");
    now_waiting.emplace_back(t.tuple->vehicle, t.first_release);
  }
  SortWaiting(&now_waiting);
  v.waiting_ = std::move(now_waiting);
}

// Every tuple exactly once; new signatures and metrics as published.
void ReleaseChecker::Pass::CheckTotals() {
  for (size_t i = 0; i < all.size(); ++i) {
    if (seen[i] == 0) Report("tuple " + std::to_string(i) + " is unaccounted for");
    if (seen[i] > 1) Report("tuple " + std::to_string(i) + " is accounted for twice");
  }
  const ByVehicle<Signature> claimed(out.new_signatures.begin(), out.new_signatures.end());
  if (minv && claimed != first_time) Report("new signatures differ from first publications");
  if (out.metrics.counterfeits != counterfeits) Report("metrics miscount counterfeits");
  if (out.metrics.published != published) Report("metrics miscount published tuples");
  for (int r = 0; r < kSuppressReasonCount; ++r) {
    if (out.metrics.suppressed_by_reason[static_cast<size_t>(r)] != by_reason[static_cast<size_t>(r)]) {
      Report("metrics miscount suppression reason " + std::to_string(r));
    }
  }
}

ReleaseChecker::Verdict ReleaseChecker::Verify(const ReleaseInput& in, const ReleaseOutput& out) const {
  Verdict verdict;
  Pass pass(*this, in, out, &verdict);
  pass.Handover();
  for (size_t gi = 0; gi < out.groups.size(); ++gi) pass.CheckGroup(gi);
  pass.CheckSuppressed();
  pass.CheckWaiting();
  pass.CheckTotals();
  verdict.forgotten_.assign(pass.forgotten.begin(), pass.forgotten.end());
  verdict.signatures_.merge(pass.first_time);
  return verdict;
}

void ReleaseChecker::Accept(Verdict verdict) {
  for (const std::string& vehicle : verdict.forgotten_) {
    signatures_.erase(vehicle);
    last_published_.erase(vehicle);
  }
  for (auto& [vehicle, sig] : verdict.signatures_) signatures_.insert_or_assign(vehicle, std::move(sig));
  for (const auto& [vehicle, release] : verdict.last_published_) last_published_.insert_or_assign(vehicle, release);
  expected_waiting_ = std::move(verdict.waiting_);
  started_ = true;
}

std::vector<std::string> ReleaseChecker::Check(const ReleaseInput& in, const ReleaseOutput& out) {
  Verdict verdict = Verify(in, out);
  std::vector<std::string> violations = verdict.violations_;
  Accept(std::move(verdict));
  return violations;
}

void ReleaseChecker::Resume(const std::vector<Published>& published, std::multimap<std::string, uint64_t> waiting) {
  signatures_.clear();
  last_published_.clear();
  for (const Published& p : published) {
    signatures_.insert_or_assign(p.vehicle, p.signature);
    last_published_.insert_or_assign(p.vehicle, p.last_release);
  }
  expected_waiting_.assign(waiting.begin(), waiting.end());
  std::sort(expected_waiting_.begin(), expected_waiting_.end());
  started_ = true;
}

}  // namespace vanon::engine
