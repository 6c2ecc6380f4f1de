// ComputeRelease: triage, then m-invariant placement (or k-anonymity), then
// covers and metrics. The algorithm and its complexity are in docs/engine.md.
#include "vanon/engine/release.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "release_builder.h"

namespace vanon::engine {

const char* ToString(SuppressReason reason) {
  switch (reason) {
    case SuppressReason::kSignatureConflict:
      return "signature_conflict";
    case SuppressReason::kDelay:
      return "delay";
    case SuppressReason::kIneligible:
      return "ineligible";
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

namespace internal {

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

ReleaseOutput ReleaseBuilder::Run() {
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

// Holds a tuple for a later release, or suppresses it once its delay is up.
void ReleaseBuilder::WaitOrSuppress(TupleRef ref) {
  const uint64_t first = FirstRelease(in_, ref);
  if (in_.release_id < first + params_.max_delay) {
    out_.waiting.push_back({ref, first});
  } else {
    Suppress(ref, SuppressReason::kDelay);
  }
}

}  // namespace internal

ReleaseOutput ComputeRelease(const Schema& schema, const ReleaseInput& input) {
  return internal::ReleaseBuilder(schema, input).Run();
}

}  // namespace vanon::engine
