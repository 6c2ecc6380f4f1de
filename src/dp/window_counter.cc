#include "vanon/dp/window_counter.h"

#include <algorithm>
#include <charconv>
#include <sstream>
#include <tuple>

#include "base/hex.h"
#include "keyed_mix.h"

namespace vanon::dp {

WindowCounter::WindowCounter(CountQuery query, int64_t window_start_ms, int64_t window_end_ms, uint64_t selection_key)
    : selection_key_(selection_key), counter_(std::move(query), window_start_ms, window_end_ms, selection_key) {}

void WindowCounter::AddVehicle(std::string_view vehicle, std::span<const DpEvent> events) {
  AddCells(
      vehicle, HashBytes(selection_key_, vehicle), events.size(), [&](size_t k) { return counter_.CellOf(events[k]); },
      [&](size_t k) { return std::string_view(events[k].trip); });
}

void WindowCounter::AddResolvedVehicle(std::string_view vehicle, uint64_t vehicle_hash, const ResolvedEvents& events) {
  counter_.ResolvedCells(events, &cells_);
  AddCells(
      vehicle, vehicle_hash, events.size(), [&](size_t k) { return cells_[k]; },
      [&](size_t k) { return events.trip(k); });
}

void WindowCounter::AddVehicleToAll(std::span<WindowCounter> counters, std::string_view vehicle,
                                    const ResolvedEvents& events) {
  if (counters.empty()) return;
  const uint64_t key = counters.front().selection_key_;
  const uint64_t hash = HashBytes(key, vehicle);
  for (WindowCounter& c : counters) {
    c.AddResolvedVehicle(vehicle, c.selection_key_ == key ? hash : HashBytes(c.selection_key_, vehicle), events);
  }
}

template <typename CellOfEvent, typename TripOfEvent>
void WindowCounter::AddCells(std::string_view vehicle, uint64_t vehicle_hash, size_t n, const CellOfEvent& cell_of,
                             const TripOfEvent& trip_of) {
  const CountQuery& q = counter_.query();
  BoundingStats& stats = *counter_.mutable_stats();
  // (rank, cell, unit key) of every matching event in the domain: the rank
  // is the keyed hash of the cell that orders a call's new cells (as in
  // BoundedCounter), computed once per event rather than per comparison;
  // the unit key is the trip's hash for kTrips, else 0.
  std::vector<std::tuple<uint64_t, uint64_t, uint64_t>>& touched = touched_;
  touched.clear();
  for (size_t k = 0; k < n; ++k) {
    const int64_t cell = cell_of(k);
    if (cell == BoundedCounter::kNoMatch) continue;
    if (cell == BoundedCounter::kOutOfDomain) {
      ++stats.out_of_domain;
      continue;
    }
    const auto c = static_cast<uint64_t>(cell);
    touched.emplace_back(Mix64(vehicle_hash ^ Mix64(c + 1)), c,
                         q.unit == CountUnit::kTrips ? HashBytes(1, trip_of(k)) : 0);
  }
  if (touched.empty()) return;
  auto held = kept_.find(vehicle);
  if (held == kept_.end()) held = kept_.emplace(std::string(vehicle), std::vector<Kept>()).first;
  std::vector<Kept>& kept = held->second;
  if (kept.empty()) ++stats.vehicles;

  // New cells of this call in the order of the keyed hash.
  std::sort(touched.begin(), touched.end());
  const uint64_t per_cell = q.unit == CountUnit::kVehicles ? 1 : q.bounds.max_per_cell;
  for (const auto& [rank, cell, unit] : touched) {
    // Captured by an init-capture: clang 14 (the fuzz build) cannot capture
    // a structured binding.
    auto it = std::find_if(kept.begin(), kept.end(), [c = cell](const Kept& k) { return k.cell == c; });
    if (it == kept.end()) {
      if (kept.size() >= q.bounds.max_cells) {
        ++stats.cut_cells;
        continue;
      }
      kept.push_back({cell, 0, {}});
      it = kept.end() - 1;
    }
    if (q.unit == CountUnit::kVehicles) {
      if (it->units > 0) continue;  // counted once per window
    } else if (q.unit == CountUnit::kTrips) {
      if (std::find(it->trips.begin(), it->trips.end(), unit) != it->trips.end()) continue;  // same trip
    }
    if (it->units >= per_cell) {
      ++stats.cut_per_cell;
      continue;
    }
    ++it->units;
    if (q.unit == CountUnit::kTrips) it->trips.push_back(unit);
    counter_.AddBounded(cell, 1);
  }
}

// Decimal numbers, space separated, as an ostream in the classic locale
// writes them; appended to a string: a std::ostringstream per vehicle and
// counter was a third of window mode's DP counts (callgrind).
void WindowCounter::AppendKept(std::string* out, const std::vector<Kept>& kept) {
  auto number = [out](uint64_t v) {
    char buf[20];
    out->append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  };
  number(kept.size());
  for (const Kept& k : kept) {
    for (uint64_t v : {k.cell, k.units, static_cast<uint64_t>(k.trips.size())}) {
      out->push_back(' ');
      number(v);
    }
    for (uint64_t t : k.trips) {
      out->push_back(' ');
      number(t);
    }
  }
}

bool WindowCounter::ReadKept(std::istream& in, std::vector<Kept>* kept) const {
  size_t n = 0;
  if (!(in >> n)) return false;
  for (size_t i = 0; i < n; ++i) {
    Kept k;
    size_t trips = 0;
    if (!(in >> k.cell >> k.units >> trips) || k.cell >= counter_.num_cells()) return false;
    // The count is stored text, maybe damaged or crafted: sizing the vector
    // by it could ask for 2^64 entries (std::length_error, or all memory).
    // The trips themselves bound the vector.
    for (size_t t = 0; t < trips; ++t) {
      uint64_t trip;
      if (!(in >> trip)) return false;
      k.trips.push_back(trip);
    }
    kept->push_back(std::move(k));
  }
  return true;
}

std::string WindowCounter::TotalsText(const char* magic) const {
  std::ostringstream out;
  const BoundingStats& s = counter_.stats();
  out << magic << ' ' << s.vehicles << ' ' << s.cut_per_cell << ' ' << s.cut_cells << ' ' << s.out_of_domain << ' '
      << counter_.num_cells();
  for (uint64_t c : counter_.counts()) out << ' ' << c;
  return out.str();
}

// Replaces counts and stats only when the whole header reads.
bool WindowCounter::ReadTotals(std::istream& in, const char* magic) {
  std::string m;
  BoundingStats s;
  size_t cells = 0;
  if (!(in >> m >> s.vehicles >> s.cut_per_cell >> s.cut_cells >> s.out_of_domain >> cells) || m != magic ||
      cells != counter_.num_cells()) {
    return false;
  }
  std::vector<uint64_t> counts(cells);
  for (uint64_t& c : counts) {
    if (!(in >> c)) return false;
  }
  for (size_t c = 0; c < cells; ++c) counter_.AddBounded(c, counts[c] - counter_.CountAt(c));
  *counter_.mutable_stats() = s;
  return true;
}

std::string WindowCounter::Serialize() const {
  std::ostringstream out;
  out << TotalsText("window1") << ' ' << kept_.size();
  for (const auto& [vehicle, kept] : kept_) {
    std::string text;
    AppendKept(&text, kept);
    out << ' ' << base::HexEncode(vehicle) << ' ' << text;
  }
  return out.str();
}

bool WindowCounter::Restore(std::string_view text) {
  std::istringstream in{std::string(text)};
  WindowCounter copy = *this;  // the header is read into a copy: no half-restored state
  if (!copy.ReadTotals(in, "window1")) return false;
  std::map<std::string, std::vector<Kept>, std::less<>> kept;
  size_t vehicles = 0;
  if (!(in >> vehicles)) return false;
  for (size_t v = 0; v < vehicles; ++v) {
    std::string hex, key;
    if (!(in >> hex) || !base::HexDecode(hex, &key) || !ReadKept(in, &kept[key])) return false;
  }
  std::string rest;
  if (in >> rest) return false;
  counter_ = copy.counter_;
  kept_ = std::move(kept);
  return true;
}

std::string WindowCounter::SerializeTotals() const { return TotalsText("wtotals1"); }

bool WindowCounter::RestoreTotals(std::string_view text) {
  std::istringstream in{std::string(text)};
  WindowCounter copy = *this;
  std::string rest;
  if (!copy.ReadTotals(in, "wtotals1") || (in >> rest)) return false;
  counter_ = copy.counter_;
  return true;
}

std::string WindowCounter::SerializeVehicle(std::string_view vehicle) const {
  auto it = kept_.find(vehicle);
  if (it == kept_.end() || it->second.empty()) return "";
  std::string out;
  AppendKept(&out, it->second);
  return out;
}

bool WindowCounter::RestoreVehicle(std::string_view vehicle, std::string_view text) {
  if (text.empty()) return true;  // held nothing in this counter
  std::istringstream in{std::string(text)};
  std::vector<Kept> kept;
  std::string rest;
  if (!ReadKept(in, &kept) || (in >> rest)) return false;
  kept_[std::string(vehicle)] = std::move(kept);
  return true;
}

std::vector<std::string> WindowCounter::Vehicles() const {
  std::vector<std::string> out;
  for (const auto& [vehicle, kept] : kept_) out.push_back(vehicle);
  return out;
}

}  // namespace vanon::dp
