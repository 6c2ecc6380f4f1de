// Global DP counts (docs/dp.md "Global counts"): one noisy count per cell
// and window over all input partitions instead of one per partition, so a
// consumer does not sum P noises.
//
// Every partition gathers its window as in dp_window_counts.cc, but sends
// the closed window's exact counts (DpPartial) to the internal topic
// dp.aggregation.topic in the release transaction that closes it: no noise
// and no ledger charge there, since the partial is internal, like the raw
// input, and deterministic, so a recomputed release sends the same partial
// again (the aggregator keeps the first). The share of the aggregation
// partition (dp.aggregation.partition) reads them, sums them per window in
// its state, and once all P partitions reported a window, charges the
// window to its ledger (the global ledger), adds noise once and publishes
// the global records in its own release transaction. A window some
// partition never reported is published after max_wait_windows more
// windows with the partitions that did, marked incomplete; a window no
// partition reported goes out with zero counts plus noise, marked
// incomplete, so no window index is missing. Windows are published in index
// order; partials of a window already published are dropped (and logged).
//
// Crash rules as for the partition's own counts:
//  * the aggregation state (meta dp_agg, dp_agg/<window>, dp_gcumsum/<query>)
//    is replaced only by the apply batch;
//  * the global ledger answers kAlreadySpent for a window it charged;
//  * the noise of window w comes from a stream keyed by the release seed and
//    w, so a recomputed release draws the same noise for the same window;
//  * which partials a release read is fixed before it publishes: the end of
//    its read is written (synced, meta dp_agg_read) before any of it is used,
//    and a recomputation of the same release reads exactly up to there. So
//    it sees the same partials, completes the same windows and, when the
//    transaction was already committed, applies the same state.
// Time-outs look at the stored state only, for the same reason.

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "service/dp/dp_partial.h"
#include "service/dp/dp_windows.h"
#include "service/store/record_names.h"
#include "service/store/share_state.h"
#include "service/support/fault_injection.h"
#include "vanon/dp/count_record.h"
#include "vanon/release/seed_stream.h"

namespace vanon::service {

namespace {

using Result = DpPublisher::Result;

constexpr const char* kIndexMeta = kDpAggIndexMeta;
constexpr const char* kReadMeta = kDpAggReadMeta;
constexpr const char* kGlobalSumsPrefix = kDpGlobalSumsPrefix;

std::string PendingMeta(int64_t window) { return std::string(kIndexMeta) + "/" + std::to_string(window); }

// The noise of one window: a stream keyed by the release's noise base and
// the window index, so it does not depend on which other windows the
// release publishes.
release::SeedStream WindowStream(release::ReleaseSeed base, int64_t window) {
  for (int i = 0; i < 8; ++i) base[24 + i] ^= static_cast<uint8_t>(static_cast<uint64_t>(window) >> (8 * i));
  return release::SeedStream(base);
}

// Fields that let a consumer tell a complete window from the data alone.
std::string GlobalTail(int32_t partitions, const std::set<int32_t>& from) {
  std::string list;
  for (int32_t p : from) list += (list.empty() ? "" : ",") + std::to_string(p);
  const bool complete = static_cast<int32_t>(from.size()) == partitions;
  return ",\"scope\":\"global\",\"partitions\":" + std::to_string(partitions) + ",\"contributing_partitions\":[" +
         list + "],\"complete\":" + (complete ? "true" : "false");
}

class GlobalCounts final : public DpMode {
 public:
  explicit GlobalCounts(DpCore* core) : core_(*core), windows_(core) {}

  Result Compute(int32_t partition, int64_t epoch, int64_t epoch_start_ms, int64_t epoch_end_ms, EventsByVehicle events,
                 dp::RandomSource& random) override;
  void SetAggregation(int32_t input_partitions, std::unique_ptr<DpPartialSource> source) override;

 private:
  // The closed window's exact counts, for the aggregation partition.
  void EmitPartial(int32_t partition, const DpWindow& window, Result* result) const;
  // The aggregation partition's share: publishes every global window
  // complete (or timed out) so far.
  void AggregateWindows(int32_t partition, int64_t epoch, int64_t current_window, dp::RandomSource& random,
                        Result* result);
  // Reads the partials of this release into `agg` (the read end fixed per release).
  void ReadPartials(int32_t partition, int64_t epoch, Result* result, DpAggregateState* agg);
  std::optional<int64_t> NextGlobalWindow(const DpAggregateState& agg, int64_t current_window, bool stored_only) const;
  DpPartial ZeroPartial(int64_t window) const;
  // A window some aggregator published (read from the partial topic): if
  // `agg` does not know it, continue after it, with its charge.
  void AdoptMark(int32_t partition, const GlobalMark& mark, DpAggregateState* agg);
  // Publishes window `window` of `agg` (its sum and sources) with noise from `random`.
  void PublishGlobal(int32_t partition, int64_t window, DpAggregateState* agg, dp::RandomSource& random,
                     Result* result);
  std::vector<dp::BoundedCounter> CountersOf(const DpPartial& sum, int64_t window) const;

  DpCore& core_;
  const WindowGatherer windows_;
  const config::DpConfig::Aggregation& aggregation_ = core_.settings.aggregation;
  int32_t input_partitions_ = 0;
  std::unique_ptr<DpPartialSource> partial_source_;
};

void GlobalCounts::SetAggregation(int32_t input_partitions, std::unique_ptr<DpPartialSource> source) {
  if (aggregation_.partition >= input_partitions) {
    throw std::invalid_argument("dp.aggregation.partition: " + std::to_string(aggregation_.partition) +
                                " is not an input partition (the input topic has " + std::to_string(input_partitions) +
                                ")");
  }
  input_partitions_ = input_partitions;
  partial_source_ = std::move(source);
}

Result GlobalCounts::Compute(int32_t partition, int64_t epoch, int64_t epoch_start_ms, int64_t epoch_end_ms,
                             EventsByVehicle events, dp::RandomSource& random) {
  Result result;
  result.partition = partition;
  std::lock_guard<std::mutex> lock(core_.mu);
  windows_.Add(
      partition, epoch_start_ms, epoch_end_ms, events,
      [&](DpWindow& window, Result* r) { EmitPartial(partition, window, r); }, &result);
  // Partitions publish nothing themselves; the aggregation partition's
  // share publishes the global counts of every window complete so far.
  // Pauses are reported from the global ledger only.
  if (partition == aggregation_.partition) {
    AggregateWindows(partition, epoch, windows_.IndexOf(epoch_start_ms), random, &result);
  }
  result.status = core_.ledgers.Get(partition).Status(epoch_start_ms);
  result.cells_published = result.records.size();
  return result;
}

void GlobalCounts::EmitPartial(int32_t partition, const DpWindow& window, Result* result) const {
  DpPartial p;
  p.window = window.index;
  p.source = partition;
  p.partitions = input_partitions_;
  for (const dp::WindowCounter& c : window.counters) {
    p.counts.push_back(c.counter().counts());
    p.cut += c.counter().stats().cut();
  }
  result->partials.emplace_back(std::to_string(window.index), EncodePartial(p));
}

void GlobalCounts::AggregateWindows(int32_t partition, int64_t epoch, int64_t current_window, dp::RandomSource& random,
                                    Result* result) {
  if (!partial_source_) throw std::logic_error("dp: global counts without a partial source (SetAggregation)");
  result->aggregated = true;
  DpAggregateState agg;
  if (std::optional<std::string> index = core_.state->GetMeta(partition, kIndexMeta); index && !index->empty()) {
    if (!agg.DecodeIndex(*index)) throw std::runtime_error("dp: unreadable aggregation state (meta dp_agg)");
  }
  // Drawn whether or not a window is published, at the same point of the
  // release's stream, so a recomputation has the same base.
  release::ReleaseSeed base;
  for (int i = 0; i < 4; ++i) {
    const uint64_t v = random.NextU64();
    for (int b = 0; b < 8; ++b) base[8 * i + b] = static_cast<uint8_t>(v >> (8 * b));
  }
  // Windows in index order; a time-out is decided on the stored state only.
  auto publish_ready = [&](bool stored_only) {
    while (std::optional<int64_t> window = NextGlobalWindow(agg, current_window, stored_only)) {
      if (!agg.sources.count(*window)) {  // no partition reported it
        agg.sources[*window];
        agg.sums[*window] = ZeroPartial(*window);
      }
      release::SeedStream noise = WindowStream(base, *window);
      PublishGlobal(partition, *window, &agg, noise, result);
    }
  };
  publish_ready(true);
  ReadPartials(partition, epoch, result, &agg);
  publish_ready(false);

  result->meta.emplace_back(kIndexMeta, agg.EncodeIndex());
  for (int64_t w : agg.changed) {
    if (!agg.removed.count(w)) result->meta.emplace_back(PendingMeta(w), EncodePartial(agg.sums.at(w)));
  }
  for (int64_t w : agg.removed) result->meta_deleted.push_back(PendingMeta(w));
}

// The next window to publish, if one is due. Windows go out in index order:
// the first pending one when every partition reported it, or when it timed
// out (max_wait_windows, on the stored state only). A window no partition
// reported (every partition idle, or its partials lost) is not skipped: it
// goes out, all cells zero plus noise, with "contributing_partitions": []
// and "complete": false, before a later window is published or when it
// timed out itself, so every window index appears in the output and a
// consumer can tell a missing window from the data alone.
std::optional<int64_t> GlobalCounts::NextGlobalWindow(const DpAggregateState& agg, int64_t current_window,
                                                      bool stored_only) const {
  auto timed_out = [&](int64_t w) { return stored_only && w + 1 + aggregation_.max_wait_windows <= current_window; };
  const bool started = agg.next != DpAggregateState::kUnset;
  if (agg.sources.empty()) {
    if (started && timed_out(agg.next)) return agg.next;  // an idle stretch
    return std::nullopt;
  }
  const auto& [window, from] = *agg.sources.begin();
  const bool complete = static_cast<int32_t>(from.size()) >= input_partitions_;
  if (!complete && !timed_out(window)) return std::nullopt;
  if (started && agg.next < window) return agg.next;  // the gap first
  return window;
}

// Zero exact counts for every cell of window `window`.
DpPartial GlobalCounts::ZeroPartial(int64_t window) const {
  DpPartial zero;
  zero.window = window;
  zero.source = -1;
  zero.partitions = input_partitions_;
  const dp::DpPlan& plan = core_.settings.plan;
  const int64_t start = window * core_.settings.window_ms, end = start + core_.settings.window_ms;
  auto add = [&](const dp::CountQuery& q) {
    zero.counts.emplace_back(dp::BoundedCounter(q, start, end, plan.selection_key).num_cells(), 0);
  };
  for (const dp::CountQuery& q : plan.counts) add(q);
  for (const dp::RatioQuery& r : plan.ratios) {
    add(r.numerator);
    add(r.denominator);
  }
  return zero;
}

void GlobalCounts::ReadPartials(int32_t partition, int64_t epoch, Result* result, DpAggregateState* agg) {
  auto sum_of = [&](int64_t window) -> DpPartial& {
    auto it = agg->sums.find(window);
    if (it != agg->sums.end()) return it->second;
    DpPartial& sum = agg->sums[window];
    sum.window = window;
    std::optional<std::string> stored = core_.state->GetMeta(partition, PendingMeta(window));
    if (stored && !stored->empty()) {
      std::optional<DpPartial> p = DecodePartial(*stored);
      if (!p) throw std::runtime_error("dp: unreadable aggregation state (meta " + PendingMeta(window) + ")");
      sum = *p;
    }
    return sum;
  };
  auto take = [&](std::string_view value, bool from_topic) {
    if (std::optional<GlobalMark> mark = DecodeGlobalMark(value)) {
      AdoptMark(partition, *mark, agg);
      return;
    }
    std::optional<DpPartial> p = DecodePartial(value);
    if (!p || p->source < 0 || p->source >= input_partitions_) {
      spdlog::warn("dp: unreadable partial on {}, dropped", aggregation_.topic);
      ++result->partials_dropped;
      return;
    }
    if (agg->next != DpAggregateState::kUnset && p->window < agg->next) {
      // This partition's own partials were taken from its release's result
      // when they were made (below): read back from the topic after their
      // window went out they are the same counts again, not late ones. (Any
      // other read back is deduplicated below; an aggregator that lost its
      // state counts them from the topic.)
      if (from_topic && p->source == partition) return;
      spdlog::warn("dp: partial of partition {} for window {} arrived after the window was published, dropped",
                   p->source, p->window);
      ++result->partials_dropped;
      return;
    }
    std::set<int32_t>& from = agg->sources[p->window];
    if (from.count(p->source)) return;  // sent again by a recomputed release: the same counts
    if (!AddPartial(*p, &sum_of(p->window))) {
      spdlog::error("dp: partial of partition {} for window {} has other cells (configs differ?), dropped", p->source,
                    p->window);
      if (from.empty()) agg->sources.erase(p->window);
      ++result->partials_dropped;
      return;
    }
    from.insert(p->source);
    agg->changed.insert(p->window);
  };
  // This release's own partial is not in the topic yet (same transaction).
  for (const auto& [key, value] : result->partials) take(value, false);

  // The read end is fixed once per release, before anything read is used.
  int64_t bound = -1;
  if (std::optional<std::string> read = core_.state->GetMeta(partition, kReadMeta)) {
    std::istringstream in(*read);
    int64_t e = 0, end = 0;
    if (in >> e >> end && e == epoch) bound = end;
  }
  int64_t end = agg->offset;
  partial_source_->Read(agg->offset, bound, [&](int64_t offset, std::string_view value) {
    take(value, true);
    end = offset + 1;
  });
  if (bound >= 0) {
    end = std::max(end, bound);
  } else {
    core_.state->CommitMetaNow(partition, kReadMeta, std::to_string(epoch) + " " + std::to_string(end));
  }
  agg->offset = end;
}

void GlobalCounts::AdoptMark(int32_t partition, const GlobalMark& mark, DpAggregateState* agg) {
  if (agg->next != DpAggregateState::kUnset && mark.window < agg->next) return;  // known: published here
  if (mark.aggregator == partition) {
    spdlog::warn(
        "dp: global window {} was published by this partition before its aggregation state was lost; not published "
        "again, its ledger charge kept",
        mark.window);
  } else {
    spdlog::warn(
        "dp: global window {} was published by input partition {} (dp.aggregation.partition was {} then); "
        "continuing after it, its ledger charge carried over",
        mark.window, mark.aggregator, mark.aggregator);
  }
  std::string error;
  if (mark.charge.epsilon_nanos > 0 && !core_.ledgers.Get(partition).Record(mark.charge, &error)) {
    throw std::runtime_error("dp: cannot record the charge of global window " + std::to_string(mark.window) + ": " +
                             error);
  }
  for (auto it = agg->sources.begin(); it != agg->sources.end() && it->first <= mark.window;) {
    agg->removed.insert(it->first);
    agg->sums.erase(it->first);
    it = agg->sources.erase(it);
  }
  agg->next = mark.window + 1;
}

void GlobalCounts::PublishGlobal(int32_t partition, int64_t window, DpAggregateState* agg, dp::RandomSource& random,
                                 Result* result) {
  const std::set<int32_t> from = agg->sources.at(window);
  DpPartial sum = agg->sums.count(window) ? agg->sums.at(window) : DpPartial{};
  if (sum.counts.empty()) {
    std::optional<std::string> stored = core_.state->GetMeta(partition, PendingMeta(window));
    std::optional<DpPartial> p = stored ? DecodePartial(*stored) : std::nullopt;
    if (!p) throw std::runtime_error("dp: aggregation state of window " + std::to_string(window) + " is missing");
    sum = *p;
  }
  agg->sources.erase(window);
  agg->removed.insert(window);
  agg->next = window + 1;

  const DpSettings& s = core_.settings;
  const int64_t start = window * s.window_ms, end = start + s.window_ms;
  const dp::SpendResult spend = core_.ledgers.Get(partition).TrySpend(
      kGlobalWindowLedgerBit | static_cast<uint64_t>(window), start, s.policy.per_release);
  const bool complete = static_cast<int32_t>(from.size()) >= input_partitions_;
  GlobalMark mark{window, partition, {}, complete};
  if (spend.outcome == dp::SpendOutcome::kExhausted) {
    result->budget_exhausted = true;
    result->exhausted_message = spend.message;
    result->partials.emplace_back("global/" + std::to_string(window), EncodeGlobalMark(mark));
    return;  // this window's counts are not published
  }
  if (!spend.publish()) throw std::runtime_error(spend.message);
  mark.charge = spend.entry;
  result->partials.emplace_back("global/" + std::to_string(window), EncodeGlobalMark(mark));
  if (spend.outcome == dp::SpendOutcome::kSpent) FaultPoint("dp.after_global_charge");

  const dp::DpRelease release(core_.settings.plan, static_cast<uint64_t>(window), CountersOf(sum, window));
  std::optional<dp::DpReleaseResult> out = release.Publish(s.policy.per_release, random);
  if (!out) throw std::runtime_error("dp: noise scale overflow in window " + std::to_string(window));
  const std::string tail = GlobalTail(input_partitions_, from);
  ++(complete ? result->global_complete : result->global_incomplete);
  for (const dp::DpCountRecord& r : out->records) result->records.push_back(DpWindowJson(r, start, end, tail));
  result->contributions_cut += sum.cut;
  CumulativeSums(core_, partition, kGlobalSumsPrefix, release, *out, tail, result);
}

// The measurements of `sum`, as exact counters to publish from.
std::vector<dp::BoundedCounter> GlobalCounts::CountersOf(const DpPartial& sum, int64_t window) const {
  const dp::DpPlan& plan = core_.settings.plan;
  const int64_t start = window * core_.settings.window_ms, end = start + core_.settings.window_ms;
  std::vector<dp::BoundedCounter> counters;
  auto add = [&](const dp::CountQuery& q) {
    dp::BoundedCounter& c = counters.emplace_back(q, start, end, plan.selection_key);
    const std::vector<uint64_t>& cells = sum.counts.at(counters.size() - 1);
    if (cells.size() != c.num_cells()) throw std::runtime_error("dp: partial sums do not match the configured cells");
    for (size_t i = 0; i < cells.size(); ++i) c.AddBounded(i, cells[i]);
  };
  if (sum.counts.size() != plan.Measurements()) {
    throw std::runtime_error("dp: partial sums do not match the configured queries");
  }
  for (const dp::CountQuery& q : plan.counts) add(q);
  for (const dp::RatioQuery& r : plan.ratios) {
    add(r.numerator);
    add(r.denominator);
  }
  return counters;
}

}  // namespace

std::unique_ptr<DpMode> NewGlobalCounts(DpCore* core) { return std::make_unique<GlobalCounts>(core); }

}  // namespace vanon::service
