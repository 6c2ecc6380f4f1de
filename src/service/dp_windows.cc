// DP windows (issue 17, docs/dp.md "DP windows"): with dp.window_seconds set,
// the DP counts of a partition are gathered over a window of several release
// epochs, aligned in event time, and published once, in the release of the
// window's last epoch (or, when that epoch never came, the first release
// after it), with one ledger charge of epsilon_per_release per window.
//
// Crash rules as for per-release counts: the open window's state is a meta
// record replaced only by the apply batch, the ledger answers kAlreadySpent
// for a window it charged, and the noise comes from the release's seed, so a
// recomputed release republishes the same values.
//
// Running totals are the cumulative sums of the published window counts:
// post-processing, no further epsilon (the tree mechanism's stream
// sensitivity would be the horizon times the window's; docs/dp.md measures
// both).

#include <sstream>
#include <stdexcept>

#include "dp_partial.h"
#include "vanon/dp/count_record.h"
#include "vanon/dp/window_counter.h"
#include "vanon/service/dp_publisher.h"
#include "vanon/state/state_store.h"

namespace vanon::service {

namespace {

constexpr const char* kWindowMeta = "dp_window";
// Ledger ids of DP windows: this bit | window index, apart from release ids
// and from running-total counter starts (DpPublisher::kTreeLedgerBit).
constexpr uint64_t kWindowLedgerBit = uint64_t{1} << 62;
constexpr const char* kCumulativeMechanism = "cumulative_sum";

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0) ? 1 : 0); }

bool HasTimeBucket(const dp::CountQuery& q) {
  for (const dp::Dimension& d : q.dimensions) {
    if (d.kind == dp::Dimension::Kind::kTimeBucket) return true;
  }
  return false;
}

std::string PartitionTail(int32_t partition) { return ",\"partition\":" + std::to_string(partition); }

}  // namespace

std::string DpWindowJson(const dp::DpCountRecord& r, int64_t start_ms, int64_t end_ms, const std::string& tail) {
  std::string json = dp::ToJson(r);
  json.pop_back();  // '}'
  json += ",\"window_start_ms\":" + std::to_string(start_ms) + ",\"window_end_ms\":" + std::to_string(end_ms) +
          tail + "}";
  return json;
}

struct DpPublisher::Window {
  int64_t index = 0;
  std::vector<dp::WindowCounter> counters;  // plan order: counts, then numerator, denominator per ratio
};

DpPublisher::Result DpPublisher::ComputeWindow(int32_t partition, int64_t epoch, int64_t epoch_start_ms,
                                               int64_t epoch_end_ms, std::span<const ingest::BufferedEvent> events,
                                               dp::RandomSource& random) {
  Result result;
  result.partition = partition;
  const int64_t index = FloorDiv(epoch_start_ms, window_ms_);
  std::lock_guard<std::mutex> lock(compute_mu_);

  auto fresh = [&](int64_t i) {
    Window w;
    w.index = i;
    const int64_t start = i * window_ms_, end = start + window_ms_;
    for (const dp::CountQuery& q : plan_.counts) w.counters.emplace_back(q, start, end, plan_.selection_key);
    for (const dp::RatioQuery& r : plan_.ratios) {
      w.counters.emplace_back(r.numerator, start, end, plan_.selection_key);
      w.counters.emplace_back(r.denominator, start, end, plan_.selection_key);
    }
    return w;
  };
  // The open window: "<index>" then one line per counter.
  std::optional<Window> open;
  if (std::optional<std::string> stored = store_->GetMeta(partition, kWindowMeta); stored && !stored->empty()) {
    std::istringstream in(*stored);
    std::string line;
    std::getline(in, line);
    open = fresh(std::stoll(line));
    for (dp::WindowCounter& c : open->counters) {
      if (!std::getline(in, line) || !c.Restore(line)) {
        throw std::runtime_error("dp: unreadable window state on partition " + std::to_string(partition));
      }
    }
  }
  if (open && open->index > index) {
    throw std::runtime_error("dp: release of epoch starting " + std::to_string(epoch_start_ms) +
                             " after its window was closed");
  }
  if (open && open->index < index) {  // its last epoch never came
    if (aggregating()) {
      EmitPartial(partition, *open, &result);
    } else {
      PublishWindow(partition, *open, random, &result);
    }
    open.reset();
  }
  if (!open) open = fresh(index);
  ForEachVehicle(events, [&](std::string_view vehicle, std::span<const dp::DpEvent> list) {
    for (dp::WindowCounter& c : open->counters) c.AddVehicle(vehicle, list);
  });

  bool published = !result.records.empty() || result.budget_exhausted;
  if (epoch_end_ms >= (index + 1) * window_ms_) {
    if (aggregating()) {
      EmitPartial(partition, *open, &result);
    } else {
      PublishWindow(partition, *open, random, &result);
    }
    result.meta.emplace_back(kWindowMeta, "");
    published = true;
  } else {
    std::string state = std::to_string(open->index);
    for (const dp::WindowCounter& c : open->counters) state += "\n" + c.Serialize();
    result.meta.emplace_back(kWindowMeta, std::move(state));
  }
  if (aggregating()) {
    // Partitions publish nothing themselves; the aggregation partition's
    // share publishes the global counts of every window complete so far.
    if (partition == aggregation_.partition) AggregateWindows(partition, epoch, index, random, &result);
    published = true;  // pauses are reported from the global ledger only
  }
  result.status = Ledger(partition).Status(epoch_start_ms);
  if (!published && result.status.exhausted) {
    // Between windows: report the pause the next charge would meet.
    result.budget_exhausted = true;
    result.exhausted_message = "the next DP window's charge does not fit in the budget";
  }
  result.cells_published = result.records.size();
  return result;
}

void DpPublisher::PublishWindow(int32_t partition, Window& window, dp::RandomSource& random, Result* result) {
  const int64_t start = window.index * window_ms_, end = start + window_ms_;
  const uint64_t id = kWindowLedgerBit | static_cast<uint64_t>(window.index);
  const dp::SpendResult spend = Ledger(partition).TrySpend(id, start, policy_.per_release);
  if (spend.outcome == dp::SpendOutcome::kExhausted) {
    result->budget_exhausted = true;
    result->exhausted_message = spend.message;
    return;  // this window's counts are not published
  }
  if (!spend.publish()) throw std::runtime_error(spend.message);

  std::vector<dp::BoundedCounter> counters;
  for (const dp::WindowCounter& c : window.counters) counters.push_back(c.counter());
  const dp::DpRelease release(plan_, static_cast<uint64_t>(window.index), std::move(counters));
  std::optional<dp::DpReleaseResult> out = release.Publish(policy_.per_release, random);
  if (!out) throw std::runtime_error("dp: noise scale overflow in window " + std::to_string(window.index));
  for (const dp::DpCountRecord& r : out->records) result->records.push_back(DpWindowJson(r, start, end, PartitionTail(partition)));
  result->contributions_cut += out->contributions_cut;

  CumulativeSums(partition, "dp_cumsum/", release, *out, PartitionTail(partition), result);
}

// Global counts: the window's exact counts go to the aggregation partition
// (dp_aggregation.cc). No noise and no ledger charge here: the partial is
// internal, like the raw input, and deterministic, so a recomputed release
// sends the same partial again (the aggregator keeps the first).
void DpPublisher::EmitPartial(int32_t partition, const Window& window, Result* result) {
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

// Running totals: per count query without a time bucket, the sum of its
// published (post-processed) window counts so far, kept in meta
// `prefix`<query> of `partition`.
void DpPublisher::CumulativeSums(int32_t partition, const std::string& prefix, const dp::DpRelease& release,
                                 const dp::DpReleaseResult& out, const std::string& tail, Result* result) {
  size_t at = 0;  // first record of query k (count records come first, cell by cell)
  for (size_t k = 0; k < plan_.counts.size(); ++k) {
    const size_t cells = release.counters()[k].num_cells();
    if (HasTimeBucket(plan_.counts[k])) {
      at += cells;
      continue;
    }
    const std::string name = prefix + plan_.counts[k].name;
    std::optional<std::string> prior;
    for (const auto& [n, v] : result->meta) {
      if (n == name) prior = v;  // a window published earlier in this release
    }
    if (!prior) prior = store_->GetMeta(partition, name);
    std::vector<int64_t> sums;
    if (prior) {
      std::istringstream in(*prior);
      int64_t v;
      while (in >> v) sums.push_back(v);
    }
    if (sums.size() != cells) sums.assign(cells, 0);  // first window, or the cells changed
    std::string state;
    for (size_t cell = 0; cell < cells; ++cell) {
      const dp::DpCountRecord& window_count = out.records[at + cell];
      sums[cell] += window_count.count;
      dp::DpCountRecord r = window_count;
      r.count = sums[cell];
      r.mechanism = kCumulativeMechanism;
      r.postprocessed.clear();
      result->records.push_back(DpWindowJson(r, 0, static_cast<int64_t>(r.release + 1) * window_ms_, tail));
      state += (cell ? " " : "") + std::to_string(sums[cell]);
    }
    bool replaced = false;
    for (auto& [n, v] : result->meta) {
      if (n == name) {
        v = state;
        replaced = true;
      }
    }
    if (!replaced) result->meta.emplace_back(name, std::move(state));
    at += cells;
  }
}

}  // namespace vanon::service
