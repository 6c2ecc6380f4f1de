// ComputeRelease, step 1: invalid and duplicate tuples out, the rest laid
// out as a work set.
#include "release_builder.h"

#include <algorithm>

#include "partitioner.h"

namespace vanon::engine::internal {

// Drops invalid tuples and keeps one tuple per vehicle: a second tuple of a
// vehicle in the same release is ineligible; a waiting tuple is superseded
// (suppressed as delayed) by a newer tuple of the same vehicle.
void ReleaseBuilder::Triage() {
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

void ReleaseBuilder::BuildWorkSet() {
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
  if (params_.history_slots > 0 || params_.shared_signatures > 0) {
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

}  // namespace vanon::engine::internal
