#include "service/dp/dp_vehicles.h"

#include <optional>
#include <string>
#include <vector>

#include "vanon/engine/schema.h"
#include "vanon/ingest/vehicle_order.h"
#include "vanon/release/schema_from_config.h"

namespace vanon::service {

namespace {

void GeneralizeInto(const engine::Schema& schema, const QiLookup& qi, const std::string& raw, std::string* out) {
  const engine::QiAttribute& a = schema.attribute(qi.attr);
  if (a.IsCategorical()) {  // a leaf, or outside the domain
    out->assign(raw);
    return;
  }
  // As TupleBuilder does: the exact code, then its fixed bin. A value with
  // no exact code (not a number, out of range, too many decimals) is in no
  // cell rather than in a neighbouring one.
  const std::optional<int32_t> code = release::NumericQiCode(qi.config, a.numeric, raw);
  if (!code) {
    out->clear();
    return;
  }
  out->assign(schema.Label(qi.attr, schema.Generalize(qi.attr, *code, *code)));
}

}  // namespace

void VehicleEvents::ForEach(std::span<const ingest::BufferedEvent> events, const Fn& fn) const {
  // Events are sorted by index and converted one vehicle at a time into a
  // scratch vector whose strings keep their capacity, so a release of a
  // million events does not allocate a million DpEvents.
  const std::vector<QiLookup>& qis = settings_.qis;
  const bool sensitive = settings_.counts_sensitive;
  const std::vector<uint32_t> order = OrderByVehicle(events, /*by_time=*/false);
  std::vector<dp::DpEvent> scratch;
  std::string vehicle;
  for (size_t i = 0; i < order.size();) {
    const ingest::HmacToken& key = events[order[i]].vehicle_key;
    size_t j = i;
    while (j < order.size() && events[order[j]].vehicle_key == key) ++j;
    while (scratch.size() < j - i) {
      dp::DpEvent& d = scratch.emplace_back();
      d.qi.resize(qis.size() + (sensitive ? 1 : 0));
      for (size_t q = 0; q < qis.size(); ++q) d.qi[q].first = qis[q].name;  // set once
    }
    for (size_t k = i; k < j; ++k) {
      const ingest::BufferedEvent& e = events[order[k]];
      dp::DpEvent& d = scratch[k - i];
      d.trip.assign(reinterpret_cast<const char*>(e.trip_key.data()), e.trip_key.size());
      d.name = e.event;
      d.ts_ms = e.ts_ms;
      if (sensitive) {
        // The last pair: named only when the event carries the value.
        const auto s = static_cast<size_t>(sensitive_extra_);
        const bool has = sensitive_extra_ >= 0 && s < e.extras.size() && e.extras[s].has_value();
        d.qi.back().first = has ? dp::kSensitiveKey : "";
        if (has) d.qi.back().second.assign(*e.extras[s]);
      }
      if (k > i && e.qi_values.SharesWith(events[order[k - 1]].qi_values)) {
        // The vehicle's events share one QI copy: generalized once.
        for (size_t q = 0; q < qis.size(); ++q) d.qi[q].second = scratch[k - i - 1].qi[q].second;
        continue;
      }
      for (size_t q = 0; q < qis.size(); ++q) {
        if (qis[q].attr < e.qi_values.size()) {
          GeneralizeInto(*settings_.schema, qis[q], e.qi_values[qis[q].attr], &d.qi[q].second);
        } else {
          d.qi[q].second.clear();
        }
      }
    }
    vehicle.assign(reinterpret_cast<const char*>(key.data()), key.size());
    fn(vehicle, std::span<const dp::DpEvent>(scratch.data(), j - i));
    i = j;
  }
}

}  // namespace vanon::service
