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
    size_t size;
    if (d.kind == Dimension::Kind::kTimeBucket) {
      const int64_t span = epoch_end_ms - epoch_start_ms;
      size = span <= 0 ? 0 : static_cast<size_t>((span + d.bucket_ms - 1) / d.bucket_ms);
    } else {
      size = d.domain.size();
    }
    radix_.push_back(size);
    cells *= size;
  }
  counts_.assign(cells, 0);
  Bind(std::make_shared<ValueIds>());
}

void BoundedCounter::Bind(std::shared_ptr<ValueIds> values) {
  bound_filters_.clear();
  bound_dims_.clear();
  for (const auto& [key, value] : query_.filter) {
    // "event", else "qi:" and the QI's name (ValidateQuery).
    const size_t field = key == "event" ? values->EventField() : values->QiField(std::string_view(key).substr(3));
    bound_filters_.emplace_back(field, values->Intern(field, value));
  }
  for (const Dimension& d : query_.dimensions) {
    if (d.kind == Dimension::Kind::kTimeBucket) {
      bound_dims_.emplace_back(SIZE_MAX, std::vector<int32_t>());
      continue;
    }
    const size_t field = d.kind == Dimension::Kind::kEvent       ? values->EventField()
                         : d.kind == Dimension::Kind::kSensitive ? values->QiField(kSensitiveKey)
                                                                 : values->QiField(d.qi);
    std::vector<int32_t> pos;
    for (size_t p = 0; p < d.domain.size(); ++p) {
      const uint32_t id = values->Intern(field, d.domain[p]);
      if (id >= pos.size()) pos.resize(id + 1, -1);
      if (pos[id] < 0) pos[id] = static_cast<int32_t>(p);  // a value listed twice: its first cell
    }
    bound_dims_.emplace_back(field, std::move(pos));
  }
  values_ = std::move(values);
}

template <typename IdOf>
int64_t BoundedCounter::EventCell(const IdOf& id, int64_t ts_ms) const {
  // kMissing and kOther never equal an interned id.
  for (const auto& [field, value] : bound_filters_) {
    if (id(field) != value) return kNoMatch;
  }
  int64_t index = 0;
  for (size_t i = 0; i < bound_dims_.size(); ++i) {
    const auto& [field, positions] = bound_dims_[i];
    size_t pos;
    if (field == SIZE_MAX) {
      const int64_t bucket_ms = query_.dimensions[i].bucket_ms;
      if (ts_ms < epoch_start_ms_ || ts_ms >= epoch_end_ms_) return kOutOfDomain;
      pos = static_cast<size_t>((ts_ms - epoch_start_ms_) / bucket_ms);
      if (pos >= radix_[i]) return kOutOfDomain;
    } else {
      const uint32_t v = id(field);
      if (v == ValueIds::kMissing) return kOutOfDomain;
      if (v < positions.size() && positions[v] >= 0) {
        pos = static_cast<size_t>(positions[v]);
      } else if (query_.dimensions[i].others_in_last && radix_[i] > 0) {
        pos = radix_[i] - 1;
      } else {
        return kOutOfDomain;
      }
    }
    index = index * static_cast<int64_t>(radix_[i]) + static_cast<int64_t>(pos);
  }
  return index;
}

template <typename CellOfEvent, typename TripOfEvent>
void BoundedCounter::AddCells(uint64_t vehicle_hash, size_t n, const CellOfEvent& cell_of, const TripOfEvent& trip_of) {
  touched_.clear();
  for (size_t k = 0; k < n; ++k) {
    const int64_t cell = cell_of(k);
    if (cell == kNoMatch) continue;
    if (cell == kOutOfDomain) {
      ++stats_.out_of_domain;
      continue;
    }
    touched_.emplace_back(static_cast<size_t>(cell),
                          query_.unit == CountUnit::kTrips ? trip_of(k) : std::string_view());
  }
  AddTouched(vehicle_hash);
}

void BoundedCounter::AddVehicle(std::string_view vehicle, std::span<const DpEvent> events) {
  AddHashedVehicle(VehicleHash(vehicle), events);
}

uint64_t BoundedCounter::VehicleHash(std::string_view vehicle) const { return HashBytes(selection_key_, vehicle); }

void BoundedCounter::AddHashedVehicle(uint64_t vehicle_hash, std::span<const DpEvent> events) {
  AddCells(
      vehicle_hash, events.size(), [&](size_t k) { return CellOf(events[k]); },
      [&](size_t k) { return std::string_view(events[k].trip); });
}

int64_t BoundedCounter::CellOf(const DpEvent& e) const {
  return EventCell([&](size_t field) { return values_->Id(field, e); }, e.ts_ms);
}

void BoundedCounter::AddResolvedVehicle(uint64_t vehicle_hash, const ResolvedEvents& events) {
  AddCells(
      vehicle_hash, events.size(), [&](size_t k) { return ResolvedCell(events, k); },
      [&](size_t k) { return events.trip(k); });
}

int64_t BoundedCounter::ResolvedCell(const ResolvedEvents& events, size_t k) const {
  const uint32_t* resolved = events.ids(k);
  return EventCell([resolved](size_t field) { return resolved[field]; }, events.ts_ms(k));
}

void BoundedCounter::ResolvedCells(const ResolvedEvents& events, std::vector<int64_t>* cells) const {
  cells->resize(events.size());
  for (size_t k = 0; k < events.size(); ++k) (*cells)[k] = ResolvedCell(events, k);
}

void BoundedCounter::AddTouched(uint64_t vehicle_hash) {
  // Raw contribution per touched cell: events, distinct trip ids, or 1. A
  // vehicle has a handful of events, so sorted vectors rather than maps
  // (which allocated a node per cell, per vehicle and query).
  std::vector<std::pair<size_t, std::string_view>>& touched = touched_;
  if (touched.empty()) return;
  if (query_.unit == CountUnit::kTrips) {
    std::sort(touched.begin(), touched.end());
  } else {  // no trips to tell apart: the cells are the whole key
    std::sort(touched.begin(), touched.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  }
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
