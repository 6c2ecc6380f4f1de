#include "vanon/dp/bounded_counter.h"

#include <algorithm>
#include <cstdint>
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
  touched_.clear();
  for (const DpEvent& e : events) {
    if (!Matches(e)) continue;
    const int64_t cell = CellIndex(e);
    if (cell < 0) {
      ++stats_.out_of_domain;
      continue;
    }
    touched_.emplace_back(static_cast<size_t>(cell),
                          query_.unit == CountUnit::kTrips ? std::string_view(e.trip) : std::string_view());
  }
  AddTouched(vehicle_hash);
}

void BoundedCounter::Bind(ValueIds* values) {
  bound_filters_.clear();
  bound_dims_.clear();
  for (const auto& [key, value] : query_.filter) {
    // As Matches reads them: "event", else "qi:" and the QI's name.
    const size_t field =
        values->Field(key == "event" ? std::string_view(ValueIds::kEventField) : std::string_view(key).substr(3));
    bound_filters_.emplace_back(field, values->Intern(field, value));
  }
  for (size_t i = 0; i < query_.dimensions.size(); ++i) {
    const Dimension& d = query_.dimensions[i];
    if (d.kind == Dimension::Kind::kTimeBucket) {
      bound_dims_.emplace_back(SIZE_MAX, std::vector<int32_t>());
      continue;
    }
    const size_t field = values->Field(d.kind == Dimension::Kind::kEvent       ? ValueIds::kEventField
                                       : d.kind == Dimension::Kind::kSensitive ? kSensitiveKey
                                                                               : std::string_view(d.qi));
    std::vector<int32_t> pos;
    for (const auto& [value, p] : value_index_[i]) {
      const uint32_t id = values->Intern(field, value);
      if (id >= pos.size()) pos.resize(id + 1, -1);
      pos[id] = static_cast<int32_t>(p);
    }
    bound_dims_.emplace_back(field, std::move(pos));
  }
}

int64_t BoundedCounter::ResolvedCell(const uint32_t* ids, int64_t ts_ms) const {
  // kMissing and kOther never equal an interned id.
  for (const auto& [field, id] : bound_filters_) {
    if (ids[field] != id) return kNoMatch;
  }
  int64_t index = 0;
  for (size_t i = 0; i < bound_dims_.size(); ++i) {
    const auto& [field, positions] = bound_dims_[i];
    size_t pos;
    if (field == SIZE_MAX) {
      const int64_t bucket_ms = query_.dimensions[i].bucket_ms;
      if (ts_ms < epoch_start_ms_ || ts_ms >= epoch_end_ms_) return -1;
      pos = static_cast<size_t>((ts_ms - epoch_start_ms_) / bucket_ms);
      if (pos >= radix_[i]) return -1;
    } else {
      const uint32_t id = ids[field];
      if (id == ValueIds::kMissing) return -1;
      if (id < positions.size() && positions[id] >= 0) {
        pos = static_cast<size_t>(positions[id]);
      } else if (query_.dimensions[i].others_in_last && radix_[i] > 0) {
        pos = radix_[i] - 1;
      } else {
        return -1;
      }
    }
    index = index * static_cast<int64_t>(radix_[i]) + static_cast<int64_t>(pos);
  }
  return index;
}

void BoundedCounter::AddResolvedVehicle(uint64_t vehicle_hash, std::span<const DpEvent> events,
                                        std::span<const uint32_t> ids, size_t stride) {
  touched_.clear();
  for (size_t k = 0; k < events.size(); ++k) {
    const int64_t cell = ResolvedCell(ids.data() + k * stride, events[k].ts_ms);
    if (cell == kNoMatch) continue;
    if (cell < 0) {
      ++stats_.out_of_domain;
      continue;
    }
    touched_.emplace_back(static_cast<size_t>(cell),
                          query_.unit == CountUnit::kTrips ? std::string_view(events[k].trip) : std::string_view());
  }
  AddTouched(vehicle_hash);
}

void BoundedCounter::AddTouched(uint64_t vehicle_hash) {
  // Raw contribution per touched cell: events, distinct trip ids, or 1. A
  // vehicle has a handful of events, so sorted vectors rather than maps
  // (which allocated a node per cell, per vehicle and query).
  std::vector<std::pair<size_t, std::string_view>>& touched = touched_;
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
