// The consumer-side attack (seed 000's Privacy Demonstrator on
// published data). The adversary reads everything a downstream consumer can
// read (anonymized events and release records, read_committed) and knows,
// for every vehicle, its quasi-identifiers, its input partition and in
// which releases it was published. For each such vehicle-release it lists
// the sensitive values the records leave possible: the values a real member
// may have in every group of that release share whose labels cover the
// vehicle's QIs. Intersecting a vehicle's candidate sets over its releases
// is the m-invariance adversary (Xiao & Tao 2007). m-invariance promises at
// least m candidates both per release and after the intersection.
#ifndef VANON_TESTS_E2E_DISCLOSURE_ATTACK_H_
#define VANON_TESTS_E2E_DISCLOSURE_ATTACK_H_

#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "output_records.h"
#include "vanon/engine/schema.h"

namespace vanon::e2e {

// Values a real member of `group` may have, as far as the records tell. A
// version-2 record lists the values without tokens: all of them. A
// version-1 record paired tokens with values, and the counterfeits are the
// tokens without events: only the values of tokens in `tokens_with_events`.
std::set<std::string> MemberCandidates(const GroupRecord& group, const std::set<std::string>& tokens_with_events);

// One published vehicle-release, as the adversary knows it.
struct Target {
  std::string vehicle;  // the adversary's name for it (never published)
  int32_t partition = 0;
  int64_t release = 0;
  std::vector<int32_t> qi;  // codes in schema order; kUnknownQiCode for an unknown VIN's
};

struct AttackReport {
  uint64_t targets = 0;
  uint64_t disclosed = 0;  // exactly one candidate value
  uint64_t below_m = 0;    // fewer than m candidates in its release
  uint64_t vehicles = 0;
  uint64_t vehicles_disclosed = 0;    // in at least one release
  uint64_t vehicles_below_m = 0;      // fewer than m after intersecting its releases
  size_t min_candidates = 0;          // over targets (0 when there are none)
  std::vector<std::string> examples;  // a few targets below m, for a failure message
};

// `events` and `groups` are the records as read back; `m` the bound to test.
AttackReport RunDisclosureAttack(const engine::Schema& schema, const std::vector<EventRecord>& events,
                                 const std::vector<GroupRecord>& groups, std::span<const Target> targets, size_t m);

}  // namespace vanon::e2e

#endif  // VANON_TESTS_E2E_DISCLOSURE_ATTACK_H_
