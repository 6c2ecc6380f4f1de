// DP windows (docs/dp.md "DP windows"): with dp.window_seconds set,
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

#include <set>
#include <sstream>
#include <stdexcept>

#include "base/hex.h"
#include "service/dp/dp_partial.h"
#include "vanon/dp/count_record.h"
#include "vanon/dp/postprocess.h"
#include "vanon/dp/window_counter.h"
#include "service/dp/dp_publisher.h"
#include "service/store/share_state.h"

namespace vanon::service {

namespace {

constexpr const char* kWindowMeta = kDpWindowMeta;
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
  json +=
      ",\"window_start_ms\":" + std::to_string(start_ms) + ",\"window_end_ms\":" + std::to_string(end_ms) + tail + "}";
  return json;
}

// The open window's state (docs/dp.md "DP windows"), written per release
// only for what the release changed:
//   dp_window             "w2 <index> <key records>" then one totals line per
//                         counter (plan order);
//   dp_wv/<index>/<hex>   one vehicle's kept cells, one line per counter,
//                         written only in releases whose epoch has it;
//   dp_wk/<index>/<n>     the vehicles first written by the n-th release
//                         that wrote any (hex, space separated): what to
//                         delete at close, since the store and the changelog
//                         have no range delete of meta keys.
// A `dp_window` of the earlier format ("<index>" then whole counters) is read
// and written out in this one, every vehicle as new.
struct DpPublisher::Window {
  int64_t index = 0;
  std::vector<dp::WindowCounter> counters;  // plan order: counts, then numerator, denominator per ratio
  int64_t key_records = 0;                  // dp_wk/<index>/0 .. key_records - 1 exist
  std::vector<std::string> touched;         // vehicles of this release (records to write)
  std::set<std::string> fresh;              // ... of which without a record so far
};

std::string WindowVehicleMeta(int64_t index, std::string_view vehicle) {
  return "dp_wv/" + std::to_string(index) + "/" + base::HexEncode(vehicle);
}

std::string WindowKeysMeta(int64_t index, int64_t n) {
  return "dp_wk/" + std::to_string(index) + "/" + std::to_string(n);
}

DpPublisher::Window DpPublisher::FreshWindow(int64_t index) const {
  Window w;
  w.index = index;
  const int64_t start = index * window_ms_, end = start + window_ms_;
  for (const dp::CountQuery& q : plan_.counts) w.counters.emplace_back(q, start, end, plan_.selection_key);
  for (const dp::RatioQuery& r : plan_.ratios) {
    w.counters.emplace_back(r.numerator, start, end, plan_.selection_key);
    w.counters.emplace_back(r.denominator, start, end, plan_.selection_key);
  }
  return w;
}

std::optional<DpPublisher::Window> DpPublisher::LoadWindow(int32_t partition) const {
  std::optional<std::string> stored = store_->GetMeta(partition, kWindowMeta);
  if (!stored || stored->empty()) return std::nullopt;
  auto unreadable = [&] {
    return std::runtime_error("dp: unreadable window state on partition " + std::to_string(partition));
  };
  std::istringstream in(*stored);
  std::string line;
  std::getline(in, line);
  std::istringstream head(line);
  std::string magic;
  int64_t index = 0, key_records = 0;
  const bool incremental = line.starts_with("w2 ");
  if (incremental ? !(head >> magic >> index >> key_records) : !(head >> index)) throw unreadable();
  Window w = FreshWindow(index);
  w.key_records = key_records;
  for (dp::WindowCounter& c : w.counters) {
    if (!std::getline(in, line) || !(incremental ? c.RestoreTotals(line) : c.Restore(line))) throw unreadable();
  }
  if (!incremental) {  // earlier format: every vehicle is written out as new
    std::set<std::string> all;
    for (const dp::WindowCounter& c : w.counters) {
      for (std::string& v : c.Vehicles()) all.insert(std::move(v));
    }
    w.touched.assign(all.begin(), all.end());
    w.fresh = std::move(all);
  }
  return w;
}

void DpPublisher::LoadVehicle(int32_t partition, std::string_view vehicle, Window* window) const {
  const std::string key(vehicle);
  if (window->fresh.count(key)) return;  // a migrated vehicle, already in memory
  window->touched.push_back(key);
  std::optional<std::string> stored = store_->GetMeta(partition, WindowVehicleMeta(window->index, vehicle));
  if (!stored) {
    window->fresh.insert(key);
    return;
  }
  std::istringstream in(*stored);
  std::string line;
  for (dp::WindowCounter& c : window->counters) {
    std::getline(in, line);  // leaves it empty past the end: a counter the vehicle is not in
    if (!c.RestoreVehicle(vehicle, line)) {
      throw std::runtime_error("dp: unreadable window state of a vehicle on partition " + std::to_string(partition));
    }
  }
}

void DpPublisher::SaveWindow(const Window& window, Result* result) const {
  std::string added;
  for (const std::string& v : window.touched) {
    std::string lines;
    bool any = false;
    for (size_t k = 0; k < window.counters.size(); ++k) {
      const std::string kept = window.counters[k].SerializeVehicle(v);
      any = any || !kept.empty();
      lines += (k ? "\n" : "") + kept;
    }
    if (!any) continue;  // none of its events counted: no record, nothing to delete
    result->meta.emplace_back(WindowVehicleMeta(window.index, v), std::move(lines));
    if (window.fresh.count(v)) added += (added.empty() ? "" : " ") + base::HexEncode(v);
  }
  int64_t key_records = window.key_records;
  if (!added.empty()) result->meta.emplace_back(WindowKeysMeta(window.index, key_records++), std::move(added));
  std::string state = "w2 " + std::to_string(window.index) + " " + std::to_string(key_records);
  for (const dp::WindowCounter& c : window.counters) state += "\n" + c.SerializeTotals();
  result->meta.emplace_back(kWindowMeta, std::move(state));
}

void DpPublisher::DropWindowKeys(int32_t partition, const Window& window, Result* result) const {
  for (int64_t n = 0; n < window.key_records; ++n) {
    const std::string name = WindowKeysMeta(window.index, n);
    std::optional<std::string> list = store_->GetMeta(partition, name);
    if (!list) continue;  // the store lost it: nothing to find its vehicles by
    std::istringstream in(*list);
    std::string hex, vehicle;
    while (in >> hex) {
      if (base::HexDecode(hex, &vehicle)) result->meta_deleted.push_back(WindowVehicleMeta(window.index, vehicle));
    }
    result->meta_deleted.push_back(name);
  }
}

// Closes `window`: its counts go out (or to the aggregation partition) and
// its per-vehicle records are deleted.
void DpPublisher::CloseWindow(int32_t partition, Window& window, dp::RandomSource& random, Result* result) {
  if (aggregating()) {
    EmitPartial(partition, window, result);
  } else {
    PublishWindow(partition, window, random, result);
  }
  DropWindowKeys(partition, window, result);
}

DpPublisher::Result DpPublisher::ComputeWindow(int32_t partition, int64_t epoch, int64_t epoch_start_ms,
                                               int64_t epoch_end_ms, std::span<const ingest::BufferedEvent> events,
                                               dp::RandomSource& random) {
  Result result;
  result.partition = partition;
  const int64_t index = FloorDiv(epoch_start_ms, window_ms_);
  std::lock_guard<std::mutex> lock(compute_mu_);

  std::optional<Window> open = LoadWindow(partition);
  if (open && open->index > index) {
    throw std::runtime_error("dp: release of epoch starting " + std::to_string(epoch_start_ms) +
                             " after its window was closed");
  }
  if (open && open->index < index) {  // its last epoch never came
    CloseWindow(partition, *open, random, &result);
    open.reset();
  }
  if (!open) open = FreshWindow(index);
  ForEachVehicle(events, [&](std::string_view vehicle, std::span<const dp::DpEvent> list) {
    LoadVehicle(partition, vehicle, &*open);
    for (dp::WindowCounter& c : open->counters) c.AddVehicle(vehicle, list);
  });

  bool published = !result.records.empty() || result.budget_exhausted;
  if (epoch_end_ms >= (index + 1) * window_ms_) {
    CloseWindow(partition, *open, random, &result);
    result.meta.emplace_back(kWindowMeta, "");
    published = true;
  } else {
    SaveWindow(*open, &result);
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
  for (const dp::DpCountRecord& r : out->records)
    result->records.push_back(DpWindowJson(r, start, end, PartitionTail(partition)));
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
// published window counts before clamping (the records' "unclamped") so far, kept in meta
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
      // The unclamped window counts: a sum of clamped counts would drift
      // upwards by every window's clamping bias.
      sums[cell] += window_count.noisy;
      dp::DpCountRecord r = window_count;
      r.noisy = sums[cell];
      const dp::PostCount v = dp::ClampCount(sums[cell]);
      r.count = v.value;
      r.mechanism = kCumulativeMechanism;
      r.postprocessed = dp::StepNames(v.steps);
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
