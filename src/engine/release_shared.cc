// Shared signatures (ReleaseParams::shared_signatures, docs/utility.md
// section 3b).
//
// A bucket (the vehicles holding one signature) publishes as many groups as
// its most frequent value needs, so a member that is absent or suppressed
// costs a counterfeit unless another member holds its value. Only buckets of
// many vehicles absorb that, but the kDistinct partition of PlaceNew gives
// nearly every new group a signature of its own. Here new vehicles join a
// small family of signatures instead: the ones most vehicles already hold,
// completed greedily with signatures that cover the values in the new
// vehicles' histories. Signatures stay fixed at first publication, so the
// checker's rules are unchanged; a group may hold a single real vehicle, as
// groups of known vehicles already may.
#include <algorithm>
#include <map>
#include <span>
#include <utility>

#include "release_builder.h"

namespace vanon::engine::internal {

namespace {

using ValueShares = std::span<const std::pair<uint32_t, double>>;  // (dense value, share)

// Bounds on the greedy choice (it runs only while the family is short of
// shared_signatures, i.e. in the first releases): candidate signatures tried
// per step and vehicles each candidate is scored on.
constexpr size_t kMaxCandidates = 256;
constexpr size_t kMaxSample = 2048;
constexpr size_t kMaxHeldSample = 65536;

// Share of a profile inside a sorted signature of dense ids.
double CoverOf(ValueShares profile, const Signature& sig) {
  double c = 0;
  for (const auto& [v, w] : profile) {
    if (std::binary_search(sig.begin(), sig.end(), v)) c += w;
  }
  return c;
}

bool Holds(const Signature& sig, uint32_t v) { return std::binary_search(sig.begin(), sig.end(), v); }

}  // namespace

// Appends an item's values as (dense id, share of its history's events),
// most frequent first: its history when the caller gave one, else its
// current value alone.
void ReleaseBuilder::AppendProfile(uint32_t item, ValueProfiles* profiles) const {
  const size_t start = profiles->pairs.size();
  const std::vector<ValueCount>& history = History(item);
  uint64_t total = 0;
  for (const ValueCount& c : history) total += c.count;
  for (const ValueCount& c : history) {
    const uint32_t d = work_.Dense(c.value);
    if (d < work_.values.size() && total > 0) {
      profiles->pairs.push_back({d, static_cast<double>(c.count) / static_cast<double>(total)});
    }
  }
  if (profiles->pairs.size() == start) profiles->pairs.push_back({work_.sensitive[item], 1.0});
  profiles->begin.push_back(static_cast<uint32_t>(profiles->pairs.size()));
}

// At most `want` signatures of `size` values (dense ids), those most
// vehicles in the input hold first.
std::vector<Signature> ReleaseBuilder::HeldSignatures(size_t size, size_t want) const {
  // Counted on at most kMaxHeldSample stored signatures (every stride-th in
  // key order, a sample that is deterministic and unrelated to the values):
  // a tree of a million signatures per release would cost more than the
  // rest of the release.
  std::map<Signature, size_t> held;
  const size_t held_stride = std::max<size_t>(1, (in_.known_signatures.size() + kMaxHeldSample - 1) / kMaxHeldSample);
  size_t seen = 0;
  for (const auto& [key, sig] : in_.known_signatures) {
    if (seen++ % held_stride == 0 && sig.size() == size) ++held[sig];
  }
  std::vector<std::pair<size_t, Signature>> by_count;
  for (const auto& [sig, n] : held) by_count.push_back({n, sig});
  std::stable_sort(by_count.begin(), by_count.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  std::vector<Signature> family;
  for (size_t i = 0; i < by_count.size() && family.size() < want; ++i) {
    Signature dense;
    for (SensitiveId v : by_count[i].second) dense.push_back(work_.Dense(v));
    family.push_back(std::move(dense));
  }
  return family;
}

// The family: signatures of the configured size that most vehicles in the
// input hold, then, while short of shared_signatures, the candidate adding
// most covered history share (a candidate is one new vehicle's most
// frequent values with its current one, filled with the values most new
// vehicles hold now). A vehicle counts only signatures holding its current
// value.
std::vector<Signature> ReleaseBuilder::SharedFamily(const ValueProfiles& profiles) const {
  const size_t size = std::max(params_.shared_signature_size, params_.m);
  const size_t want = params_.shared_signatures;
  std::vector<Signature> family = HeldSignatures(size, want);
  if (family.size() >= want || fresh_.empty() || work_.values.size() < size) return family;

  // Values by how many new vehicles hold them now, for the fill of a candidate.
  std::vector<size_t> count(work_.values.size(), 0);
  for (uint32_t item : fresh_) ++count[work_.sensitive[item]];
  std::vector<uint32_t> popular(work_.values.size());
  for (uint32_t v = 0; v < popular.size(); ++v) popular[v] = v;
  std::stable_sort(popular.begin(), popular.end(), [&](uint32_t x, uint32_t y) { return count[x] > count[y]; });

  const size_t stride = (fresh_.size() + kMaxSample - 1) / kMaxSample;
  std::vector<size_t> sample;  // positions in fresh_ / profiles
  for (size_t i = 0; i < fresh_.size(); i += stride) sample.push_back(i);
  std::map<Signature, size_t> proposed;
  for (size_t i : sample) {
    Signature sig{work_.sensitive[fresh_[i]]};
    for (const auto& [value, share] : profiles.Of(i)) {
      if (sig.size() >= size) break;
      if (std::find(sig.begin(), sig.end(), value) == sig.end()) sig.push_back(value);
    }
    // Filled with the most held values. (Filling with the values nearest in
    // popularity to the current one balanced buckets better in theory but
    // measured worse: more suppression on the drifting fleet, NCP 0.56
    // against 0.21 on 50 uniform values.)
    for (size_t j = 0; j < popular.size() && sig.size() < size; ++j) {
      if (std::find(sig.begin(), sig.end(), popular[j]) == sig.end()) sig.push_back(popular[j]);
    }
    std::sort(sig.begin(), sig.end());
    ++proposed[sig];
  }
  std::vector<std::pair<size_t, Signature>> candidates;
  for (const auto& [sig, n] : proposed) candidates.push_back({n, sig});
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const auto& x, const auto& y) { return x.first > y.first; });
  if (candidates.size() > kMaxCandidates) candidates.resize(kMaxCandidates);

  auto cover = [&](size_t i, const Signature& sig) {
    return Holds(sig, work_.sensitive[fresh_[i]]) ? CoverOf(profiles.Of(i), sig) : 0.0;
  };
  std::vector<double> best(sample.size(), 0.0);
  for (size_t s = 0; s < sample.size(); ++s) {
    for (const Signature& sig : family) best[s] = std::max(best[s], cover(sample[s], sig));
  }
  std::vector<bool> used(candidates.size(), false);
  while (family.size() < want) {
    size_t pick = candidates.size();
    double pick_gain = 1e-9;
    for (size_t c = 0; c < candidates.size(); ++c) {
      if (used[c]) continue;
      double gain = 0;
      for (size_t s = 0; s < sample.size(); ++s)
        gain += std::max(0.0, cover(sample[s], candidates[c].second) - best[s]);
      if (gain > pick_gain) {
        pick = c;
        pick_gain = gain;
      }
    }
    if (pick == candidates.size()) break;
    used[pick] = true;
    for (size_t s = 0; s < sample.size(); ++s) best[s] = std::max(best[s], cover(sample[s], candidates[pick].second));
    family.push_back(candidates[pick].second);
  }
  return family;
}

// New vehicles join the family signature holding their current value that
// covers most of their history (ties: the bucket with fewest new vehicles
// of that value so far, for balance); the others stay for PlaceNew.
void ReleaseBuilder::PlaceShared() {
  if (fresh_.empty()) return;
  ValueProfiles profiles;
  profiles.begin.reserve(fresh_.size() + 1);
  profiles.pairs.reserve(fresh_.size());
  for (uint32_t item : fresh_) AppendProfile(item, &profiles);
  const std::vector<Signature> family = SharedFamily(profiles);
  std::vector<std::vector<uint32_t>> members(family.size());
  std::vector<std::map<uint32_t, size_t>> joined(family.size());
  std::vector<uint32_t> rest;
  for (size_t i = 0; i < fresh_.size(); ++i) {
    const uint32_t value = work_.sensitive[fresh_[i]];
    size_t pick = family.size();
    double pick_cover = -1;
    for (size_t f = 0; f < family.size(); ++f) {
      if (!Holds(family[f], value)) continue;
      const double c = CoverOf(profiles.Of(i), family[f]);
      if (pick == family.size() || c > pick_cover + 1e-12 ||
          (c > pick_cover - 1e-12 && joined[f][value] < joined[pick][value])) {
        pick = f;
        pick_cover = c;
      }
    }
    if (pick == family.size()) {
      rest.push_back(fresh_[i]);
      continue;
    }
    members[pick].push_back(fresh_[i]);
    ++joined[pick][value];
  }
  fresh_ = std::move(rest);
  for (size_t f = 0; f < family.size(); ++f) {
    if (members[f].empty()) continue;
    Signature sig;
    for (uint32_t d : family[f]) sig.push_back(work_.values[d]);
    GroupBucket(sig, members[f]);
  }
}

}  // namespace vanon::engine::internal
