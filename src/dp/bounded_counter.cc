#include "vanon/dp/bounded_counter.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "keyed_mix.h"

namespace vanon::dp {

BoundedCounter::BoundedCounter(CountQuery query, int64_t epoch_start_ms, int64_t epoch_end_ms, uint64_t selection_key)
    : query_(std::move(query)),
      epoch_start_ms_(epoch_start_ms),
      epoch_end_ms_(epoch_end_ms),
      selection_key_(selection_key) {
  size_t cells = 1;
  for (const Dimension& d : query_.dimensions) {
    std::unordered_map<std::string, size_t> index;
    size_t size;
    if (d.kind == Dimension::Kind::kTimeBucket) {
      const int64_t span = epoch_end_ms - epoch_start_ms;
      size = span <= 0 ? 0 : static_cast<size_t>((span + d.bucket_ms - 1) / d.bucket_ms);
    } else {
      for (size_t i = 0; i < d.domain.size(); ++i) index.emplace(d.domain[i], i);
      size = d.domain.size();
    }
    radix_.push_back(size);
    value_index_.push_back(std::move(index));
    cells *= size;
  }
  counts_.assign(cells, 0);
}

bool BoundedCounter::Matches(const DpEvent& e) const {
  for (const auto& [key, value] : query_.filter) {
    if (key == "event") {
      if (e.name != value) return false;
    } else {
      const std::string* v = e.Qi(std::string_view(key).substr(3));
      if (v == nullptr || *v != value) return false;
    }
  }
  return true;
}

int64_t BoundedCounter::CellIndex(const DpEvent& e) const {
  int64_t index = 0;
  for (size_t i = 0; i < query_.dimensions.size(); ++i) {
    const Dimension& d = query_.dimensions[i];
    size_t pos;
    if (d.kind == Dimension::Kind::kTimeBucket) {
      if (e.ts_ms < epoch_start_ms_ || e.ts_ms >= epoch_end_ms_) return -1;
      pos = static_cast<size_t>((e.ts_ms - epoch_start_ms_) / d.bucket_ms);
      if (pos >= radix_[i]) return -1;
    } else {
      const std::string* value = d.kind == Dimension::Kind::kEvent       ? &e.name
                                 : d.kind == Dimension::Kind::kSensitive ? e.Qi(kSensitiveKey)
                                                                         : e.Qi(d.qi);
      if (value == nullptr) return -1;
      auto it = value_index_[i].find(*value);
      if (it != value_index_[i].end()) {
        pos = it->second;
      } else if (d.others_in_last && radix_[i] > 0) {
        pos = radix_[i] - 1;
      } else {
        return -1;
      }
    }
    index = index * static_cast<int64_t>(radix_[i]) + static_cast<int64_t>(pos);
  }
  return index;
}

void BoundedCounter::AddVehicle(std::string_view vehicle, std::span<const DpEvent> events) {
  AddHashedVehicle(VehicleHash(vehicle), events);
}

uint64_t BoundedCounter::VehicleHash(std::string_view vehicle) const { return HashBytes(selection_key_, vehicle); }

void BoundedCounter::AddHashedVehicle(uint64_t vehicle_hash, std::span<const DpEvent> events) {
  // Raw contribution per touched cell: events, distinct trip ids, or 1. A
  // vehicle has a handful of events, so sorted vectors rather than maps
  // (which allocated a node per cell, per vehicle and query).
  std::vector<std::pair<size_t, std::string_view>>& touched = touched_;
  touched.clear();
  for (const DpEvent& e : events) {
    if (!Matches(e)) continue;
    const int64_t cell = CellIndex(e);
    if (cell < 0) {
      ++stats_.out_of_domain;
      continue;
    }
    touched.emplace_back(static_cast<size_t>(cell),
                         query_.unit == CountUnit::kTrips ? std::string_view(e.trip) : std::string_view());
  }
  if (touched.empty()) return;
  std::sort(touched.begin(), touched.end());
  if (query_.unit != CountUnit::kEvents) touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  std::vector<std::pair<size_t, uint64_t>>& raw = raw_;
  raw.clear();
  for (const auto& [c, trip] : touched) {
    if (raw.empty() || raw.back().first != c) raw.emplace_back(c, 0);
    ++raw.back().second;
  }
  ++stats_.vehicles;

  const uint64_t per_cell = query_.unit == CountUnit::kVehicles ? 1 : query_.bounds.max_per_cell;
  // (selection hash, cell, contribution): the cells a vehicle keeps are
  // chosen by a keyed hash, not by their order.
  std::vector<std::tuple<uint64_t, size_t, uint64_t>>& order = selection_;
  order.clear();
  for (const auto& [c, n] : raw) order.emplace_back(Mix64(vehicle_hash ^ Mix64(c + 1)), c, n);
  std::sort(order.begin(), order.end());

  for (size_t i = 0; i < order.size(); ++i) {
    const size_t c = std::get<1>(order[i]);
    const uint64_t n = std::get<2>(order[i]);
    const uint64_t kept = std::min(n, per_cell);
    stats_.cut_per_cell += n - kept;
    if (i < query_.bounds.max_cells) {
      counts_[c] += kept;
    } else {
      stats_.cut_cells += kept;
    }
  }
}

void BoundedCounter::AddEvents(std::span<const DpEvent> events) {
  std::map<std::string_view, std::vector<DpEvent>> by_vehicle;
  for (const DpEvent& e : events) by_vehicle[e.vehicle].push_back(e);
  for (const auto& [vehicle, list] : by_vehicle) AddVehicle(vehicle, list);
}

Cell BoundedCounter::CellAt(size_t index) const {
  Cell cell(query_.dimensions.size());
  for (size_t i = query_.dimensions.size(); i-- > 0;) {
    const Dimension& d = query_.dimensions[i];
    const size_t pos = index % radix_[i];
    index /= radix_[i];
    if (d.kind == Dimension::Kind::kTimeBucket) {
      cell[i] = {d.Key(), std::to_string(epoch_start_ms_ + static_cast<int64_t>(pos) * d.bucket_ms)};
    } else {
      cell[i] = {d.Key(), d.domain[pos]};
    }
  }
  return cell;
}

}  // namespace vanon::dp
