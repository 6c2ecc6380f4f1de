#include "vanon/dp/count_query.h"

#include <set>

namespace vanon::dp {

std::string Dimension::Key() const {
  switch (kind) {
    case Kind::kEvent:
      return "event";
    case Kind::kTimeBucket:
      return "time_bucket";
    case Kind::kQi:
      return qi;
    case Kind::kSensitive:
      return "sensitive";
  }
  return "";
}

uint64_t CountQuery::Sensitivity() const {
  const uint64_t per_cell = unit == CountUnit::kVehicles ? 1 : bounds.max_per_cell;
  return per_cell * bounds.max_cells;
}

std::optional<std::string> ValidateQuery(const CountQuery& q, int64_t epoch_ms) {
  const std::string where = "dp query '" + q.name + "': ";
  if (q.name.empty()) return "dp query without a name";
  if (q.bounds.max_per_cell == 0 || q.bounds.max_cells == 0) {
    return where + "max_per_cell and max_cells must be > 0";
  }
  if (q.bounds.max_per_cell > 1'000'000 || q.bounds.max_cells > 1'000'000) {
    return where + "contribution bounds above 10^6 make the noise useless";
  }
  uint64_t cells = 1;
  std::set<std::string> keys;
  for (const Dimension& d : q.dimensions) {
    if (d.kind == Dimension::Kind::kQi && d.qi.empty()) return where + "qi dimension without a name";
    if (!keys.insert(d.Key()).second) return where + "dimension '" + d.Key() + "' repeated";
    uint64_t size;
    if (d.kind == Dimension::Kind::kTimeBucket) {
      if (d.bucket_ms <= 0) return where + "time_bucket needs a positive width";
      if (epoch_ms <= 0) return where + "epoch length must be positive";
      size = static_cast<uint64_t>((epoch_ms + d.bucket_ms - 1) / d.bucket_ms);
    } else {
      if (d.domain.empty()) {
        return where + "dimension '" + d.Key() + "' needs its list of values (cells must not depend on the data)";
      }
      std::set<std::string> distinct(d.domain.begin(), d.domain.end());
      if (distinct.size() != d.domain.size()) {
        return where + "dimension '" + d.Key() + "' lists a value twice";
      }
      size = d.domain.size();
    }
    if (size > kMaxCellsPerQuery || cells * size > kMaxCellsPerQuery) {
      return where + "more than " + std::to_string(kMaxCellsPerQuery) + " cells";
    }
    cells *= size;
  }
  for (const auto& [key, value] : q.filter) {
    if (key != "event" && key.rfind("qi:", 0) != 0) {
      return where + "filter key '" + key + "' is neither 'event' nor 'qi:<name>'";
    }
  }
  return std::nullopt;
}

std::optional<std::string> ValidateRatio(const RatioQuery& r, int64_t epoch_ms) {
  if (auto err = ValidateQuery(r.numerator, epoch_ms)) return err;
  if (auto err = ValidateQuery(r.denominator, epoch_ms)) return err;
  const auto& a = r.numerator.dimensions;
  const auto& b = r.denominator.dimensions;
  bool same = a.size() == b.size();
  for (size_t i = 0; same && i < a.size(); ++i) {
    same = a[i].Key() == b[i].Key() && a[i].domain == b[i].domain && a[i].bucket_ms == b[i].bucket_ms;
  }
  if (!same) return "dp kpi '" + r.name + "': numerator and denominator need the same dimensions";
  return std::nullopt;
}

const char* CountUnitName(CountUnit unit) {
  switch (unit) {
    case CountUnit::kEvents:
      return "events";
    case CountUnit::kTrips:
      return "trips";
    case CountUnit::kVehicles:
      return "vehicles";
  }
  return "?";
}

}  // namespace vanon::dp
