// Exact DP window counts of one input partition, as sent to the aggregation
// partition over the internal topic dp.aggregation.topic
// (docs/dp.md "Global counts"). Exact counts: the topic needs the same access
// rules as the raw input.
#ifndef VANON_SRC_SERVICE_DP_DP_PARTIAL_H_
#define VANON_SRC_SERVICE_DP_DP_PARTIAL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "vanon/dp/ledger_store.h"

namespace vanon::service {

struct DpPartial {
  int64_t window = 0;      // window index (window_start_ms / window length)
  int32_t source = 0;      // input partition that counted
  int32_t partitions = 0;  // input partitions the sender knew of
  uint64_t cut = 0;        // contributions cut by bounding
  // Per measurement (plan order: counts, then numerator and denominator of
  // each ratio), the bounded count of every cell.
  std::vector<std::vector<uint64_t>> counts;
};

// "vdp-partial1 <window> <source> <partitions> <cut>" then one line of
// space-separated counts per measurement.
std::string EncodePartial(const DpPartial& p);
std::optional<DpPartial> DecodePartial(std::string_view text);

// What the aggregation partition sends to the partial topic beside the
// partials, in the release transaction that publishes a global window: the
// window, who published it, and the ledger charge that paid for it (nanos 0:
// not published, the budget was exhausted). Any later aggregator (the
// configured partition changed, or the aggregating partition's state was
// lost) reads them from the topic and continues after the last published
// window with these charges in its ledger, instead of publishing the
// windows again with fresh noise and a fresh budget.
struct GlobalMark {
  int64_t window = 0;
  int32_t aggregator = 0;
  dp::LedgerEntry charge;
  bool complete = false;
};
// "vdp-global1 <window> <aggregator> <ledger id> <charged ms> <nanos> <complete 0|1>"
std::string EncodeGlobalMark(const GlobalMark& m);
std::optional<GlobalMark> DecodeGlobalMark(std::string_view text);

// Adds `p` into `sum` (same shape, or `sum` empty). False on a shape mismatch.
bool AddPartial(const DpPartial& p, DpPartial* sum);

// The aggregation partition's state (dp_global_counts.cc): meta dp_agg holds
// "<next window> <read offset>" then one line per pending window,
// "<window> <source> <source> ..."; each pending window's sum is in meta
// dp_agg/<window> (an encoded DpPartial, source -1), rewritten only when a
// partial for it arrives.
struct DpAggregateState {
  static constexpr int64_t kUnset = -1;
  int64_t next = kUnset;  // windows below it are published (or dropped)
  int64_t offset = 0;     // next offset of the partial topic to read
  std::map<int64_t, std::set<int32_t>> sources;
  std::map<int64_t, DpPartial> sums;  // loaded or changed
  std::set<int64_t> changed;          // sums to write back
  std::set<int64_t> removed;          // windows published this release

  std::string EncodeIndex() const;
  bool DecodeIndex(std::string_view text);
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_DP_DP_PARTIAL_H_
