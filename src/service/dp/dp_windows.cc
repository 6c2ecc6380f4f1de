#include "service/dp/dp_windows.h"

#include <sstream>
#include <stdexcept>
#include <utility>

#include "base/hex.h"
#include "service/store/record_names.h"
#include "service/store/share_state.h"
#include "vanon/dp/postprocess.h"

namespace vanon::service {

namespace {

constexpr const char* kWindowMeta = kDpWindowMeta;
constexpr const char* kCumulativeMechanism = "cumulative_sum";

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0) ? 1 : 0); }

std::string WindowVehicleMeta(int64_t index, std::string_view vehicle) {
  return "dp_wv/" + std::to_string(index) + "/" + base::HexEncode(vehicle);
}

std::string WindowKeysMeta(int64_t index, int64_t n) {
  return "dp_wk/" + std::to_string(index) + "/" + std::to_string(n);
}

}  // namespace

std::string DpWindowJson(const dp::DpCountRecord& r, int64_t start_ms, int64_t end_ms, const std::string& tail) {
  std::string json = dp::ToJson(r);
  json.pop_back();  // '}'
  json +=
      ",\"window_start_ms\":" + std::to_string(start_ms) + ",\"window_end_ms\":" + std::to_string(end_ms) + tail + "}";
  return json;
}

int64_t WindowGatherer::IndexOf(int64_t epoch_start_ms) const {
  return FloorDiv(epoch_start_ms, core_.settings.window_ms);
}

DpWindow WindowGatherer::Fresh(int64_t index) const {
  const dp::DpPlan& plan = core_.settings.plan;
  DpWindow w;
  w.index = index;
  const int64_t start = index * core_.settings.window_ms, end = start + core_.settings.window_ms;
  for (const dp::CountQuery& q : plan.counts) w.counters.emplace_back(q, start, end, plan.selection_key);
  for (const dp::RatioQuery& r : plan.ratios) {
    w.counters.emplace_back(r.numerator, start, end, plan.selection_key);
    w.counters.emplace_back(r.denominator, start, end, plan.selection_key);
  }
  w.values = std::make_shared<dp::ValueIds>();
  for (dp::WindowCounter& c : w.counters) c.Bind(w.values);
  return w;
}

std::optional<DpWindow> WindowGatherer::Load(int32_t partition) const {
  std::optional<std::string> stored = core_.state->GetMeta(partition, kWindowMeta);
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
  DpWindow w = Fresh(index);
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

void WindowGatherer::LoadVehicle(int32_t partition, std::string_view vehicle, DpWindow* window) const {
  const std::string key(vehicle);
  if (window->fresh.count(key)) return;  // a migrated vehicle, already in memory
  window->touched.push_back(key);
  std::optional<std::string> stored = core_.state->GetMeta(partition, WindowVehicleMeta(window->index, vehicle));
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

void WindowGatherer::Save(const DpWindow& window, DpPublisher::Result* result) const {
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

void WindowGatherer::DropKeys(int32_t partition, const DpWindow& window, DpPublisher::Result* result) const {
  for (int64_t n = 0; n < window.key_records; ++n) {
    const std::string name = WindowKeysMeta(window.index, n);
    std::optional<std::string> list = core_.state->GetMeta(partition, name);
    if (!list) continue;  // the store lost it: nothing to find its vehicles by
    std::istringstream in(*list);
    std::string hex, vehicle;
    while (in >> hex) {
      if (base::HexDecode(hex, &vehicle)) result->meta_deleted.push_back(WindowVehicleMeta(window.index, vehicle));
    }
    result->meta_deleted.push_back(name);
  }
}

bool WindowGatherer::Add(int32_t partition, int64_t epoch_start_ms, int64_t epoch_end_ms, EventsByVehicle events,
                         const CloseFn& close, DpPublisher::Result* result) const {
  const int64_t index = IndexOf(epoch_start_ms);
  std::optional<DpWindow> open = Load(partition);
  if (open && open->index > index) {
    throw std::runtime_error("dp: release of epoch starting " + std::to_string(epoch_start_ms) +
                             " after its window was closed");
  }
  if (open && open->index < index) {  // its last epoch never came
    close(*open, result);
    DropKeys(partition, *open, result);
    open.reset();
  }
  if (!open) open = Fresh(index);
  core_.vehicles.ForEach(events, *open->values, [&](std::string_view vehicle, const dp::ResolvedEvents& list) {
    LoadVehicle(partition, vehicle, &*open);
    dp::WindowCounter::AddVehicleToAll(open->counters, vehicle, list);
  });
  if (epoch_end_ms < (index + 1) * core_.settings.window_ms) {
    Save(*open, result);
    return false;
  }
  close(*open, result);
  DropKeys(partition, *open, result);
  result->meta.emplace_back(kWindowMeta, "");
  return true;
}

void CumulativeSums(const DpCore& core, int32_t partition, const std::string& prefix, const dp::DpRelease& release,
                    const dp::DpReleaseResult& out, const std::string& tail, DpPublisher::Result* result) {
  const dp::DpPlan& plan = core.settings.plan;
  size_t at = 0;  // first record of query k (count records come first, cell by cell)
  for (size_t k = 0; k < plan.counts.size(); ++k) {
    const size_t cells = release.counters()[k].num_cells();
    if (HasTimeBucket(plan.counts[k])) {
      at += cells;
      continue;
    }
    const std::string name = prefix + plan.counts[k].name;
    std::optional<std::string> prior;
    for (const auto& [n, v] : result->meta) {
      if (n == name) prior = v;  // a window published earlier in this release
    }
    if (!prior) prior = core.state->GetMeta(partition, name);
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
      result->records.push_back(
          DpWindowJson(r, 0, static_cast<int64_t>(r.release + 1) * core.settings.window_ms, tail));
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
