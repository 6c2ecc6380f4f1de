// One release of the privacy engine: plain values in, plain values out.
//
// The caller (the service, a test, a benchmark) owns all state. It passes the
// tuples of release j, the signatures stored for vehicles published earlier,
// and the tuples still waiting from earlier releases; it persists the new
// signatures and the tuples that keep waiting from the output.
#ifndef VANON_ENGINE_RELEASE_H_
#define VANON_ENGINE_RELEASE_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "vanon/engine/metrics.h"
#include "vanon/engine/schema.h"

namespace vanon::engine {

using SensitiveId = uint32_t;
// Sorted, duplicate-free set of sensitive values.
using Signature = std::vector<SensitiveId>;

struct ValueCount {
  SensitiveId value = 0;
  uint32_t count = 0;
  bool operator==(const ValueCount&) const = default;
};

struct Tuple {
  std::string vehicle;      // opaque key (an HMAC of the VIN in production)
  std::vector<int32_t> qi;  // one code per schema attribute
  SensitiveId sensitive = 0;
  uint32_t events = 1;  // events behind this tuple; weights g-balance only
};

struct WaitingTuple {
  Tuple tuple;
  uint64_t first_release = 0;  // release in which the tuple first waited
};

enum class Model { kMInvariance, kKAnonymity };

struct ReleaseParams {
  Model model = Model::kMInvariance;
  uint32_t m = 5;          // m-invariance
  uint32_t k = 5;          // k-anonymity: distinct vehicles per group
  uint32_t l = 0;          // k-anonymity: distinct sensitive values per group, 0 = off
  double t = 0;            // k-anonymity: equal-distance EMD cap, 0 = off
  uint32_t max_delay = 0;  // releases a tuple may wait before it is suppressed
  // m-invariance: counterfeit slots allowed in a group that forms a new
  // signature, so each such group still holds >= m - this many real
  // vehicles (at least 1). 0 keeps new signatures all real: when the values
  // are too skewed for groups of m distinct real values, the surplus waits
  // and is suppressed instead. See docs/engine.md for the trade.
  uint32_t new_group_counterfeits = 0;
  // m-invariance, history-aware signatures (docs/utility.md), off while
  // history_slots and history_min_events are 0:
  // - history_slots: a new signature may carry up to this many values beyond
  //   its group's real ones, chosen among the values its members took before
  //   (ReleaseInput::histories), so that a member whose value moves to one
  //   of them is still published; each is a counterfeit slot until a vehicle
  //   fills it. Only values with at least history_min_share of a member's
  //   events count.
  // - history_min_events: a new vehicle whose history holds fewer events
  //   waits (within max_delay) so its signature is chosen from what it does,
  //   not from one epoch.
  uint32_t history_slots = 0;
  double history_min_share = 0.1;
  uint32_t history_min_events = 0;
  // m-invariance, shared signatures (docs/utility.md section 3b), off while
  // 0: new vehicles join the buckets of at most this many signatures of
  // shared_signature_size values (at least m), the signatures most vehicles
  // already hold, completed from the new vehicles' histories. Larger buckets
  // absorb absent members with fewer counterfeits; fewer signatures cover
  // less of each vehicle's values. A vehicle whose value is in none of them
  // forms a new signature as before.
  uint32_t shared_signatures = 0;
  uint32_t shared_signature_size = 0;
  // The signature retention horizon in releases (0 = forever). The engine
  // does not read it: the caller drops a stored signature once its vehicle
  // has not been published for more than this many releases (the service's
  // privacy.signature_retention_days), and the checker allows exactly that.
  uint64_t signature_horizon = 0;
  uint64_t seed = 0;
};

struct ReleaseInput {
  uint64_t release_id = 0;
  std::vector<Tuple> tuples;
  std::map<std::string, Signature, std::less<>> known_signatures;
  std::vector<WaitingTuple> waiting;
  // Optional, by vehicle key: events per value the vehicle had in earlier
  // epochs, most frequent first (ValueWindow::history, kept in state by the
  // caller). Read only for vehicles that get their signature in this
  // release, and only with ReleaseParams::history_* set.
  std::map<std::string, std::vector<ValueCount>, std::less<>> histories;
  ReleaseParams params;
};

// Tuples are referred to by position in the concatenation of input.tuples and
// input.waiting: ref < tuples.size() is a tuple of this release, otherwise
// input.waiting[ref - tuples.size()]. Use ResolveTuple / FirstRelease.
using TupleRef = uint32_t;

struct Group {
  std::vector<Cover> qi;          // one cover per schema attribute
  std::vector<TupleRef> members;  // real tuples, sorted
  Signature signature;            // every sensitive value published in the group
  // Values of the signature carried by counterfeit tuples (one slot each).
  std::vector<SensitiveId> counterfeits;
};

enum class SuppressReason { kSignatureConflict = 0, kDelay = 1, kIneligible = 2 };
inline constexpr int kSuppressReasonCount = 3;
const char* ToString(SuppressReason reason);

struct Suppressed {
  TupleRef ref;
  SuppressReason reason;
};

struct StillWaiting {
  TupleRef ref;
  uint64_t first_release;
};

struct ReleaseOutput {
  std::vector<Group> groups;
  std::vector<Suppressed> suppressed;
  // Vehicles published for the first time with their fixed signature, by key.
  std::vector<std::pair<std::string, Signature>> new_signatures;
  std::vector<StillWaiting> waiting;
  ReleaseMetrics metrics;
};

const Tuple& ResolveTuple(const ReleaseInput& input, TupleRef ref);
uint64_t FirstRelease(const ReleaseInput& input, TupleRef ref);

// Printable generalized QIs of a group, one label per schema attribute.
std::vector<std::string> GroupLabels(const Schema& schema, const Group& group);

// Deterministic for equal input (including params.seed).
ReleaseOutput ComputeRelease(const Schema& schema, const ReleaseInput& input);

}  // namespace vanon::engine

#endif  // VANON_ENGINE_RELEASE_H_
