#include "service/dp/dp_vehicles.h"

#include <algorithm>
#include <optional>
#include <string>

#include "vanon/engine/schema.h"
#include "vanon/ingest/vehicle_order.h"
#include "vanon/release/schema_from_config.h"

namespace vanon::service {

namespace {

std::string_view Bytes(const ingest::HmacToken& t) {
  return std::string_view(reinterpret_cast<const char*>(t.data()), t.size());
}

// The cell label of a QI's raw value; "" when it has none.
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

std::vector<std::vector<const ingest::BufferedEvent*>> GroupByVehicle(std::span<const ingest::BufferedEvent> events) {
  const ingest::VehicleRuns runs = ingest::RunsByVehicle(events, /*by_time=*/false);
  std::vector<std::vector<const ingest::BufferedEvent*>> out;
  out.reserve(runs.ends.size());
  uint32_t begin = 0;
  for (const uint32_t end : runs.ends) {
    std::vector<const ingest::BufferedEvent*>& group = out.emplace_back();
    group.reserve(end - begin);
    for (uint32_t i = begin; i < end; ++i) group.push_back(&events[runs.order[i]]);
    begin = end;
  }
  return out;
}

// The fields as a DpEvent written out from the buffered event would carry
// them: the configured QIs the queries use, generalized (absent from the
// event: ""), then the sensitive value when a query counts it and the event
// has it. Any other field is missing.
std::vector<VehicleEvents::Source> VehicleEvents::Sources(const dp::ValueIds& values) const {
  std::vector<Source> out(values.fields(), Source{Source::Kind::kMissing});
  for (size_t f = 0; f < values.fields(); ++f) {
    if (values.FieldIsEventName(f)) {
      out[f].kind = Source::Kind::kEventName;
      continue;
    }
    const std::string& name = values.FieldQi(f);
    for (size_t q = 0; q < settings_.qis.size(); ++q) {
      if (settings_.qis[q].name == name) {
        out[f] = {Source::Kind::kQi, q};
        break;
      }
    }
    if (out[f].kind == Source::Kind::kMissing && name == dp::kSensitiveKey && settings_.counts_sensitive) {
      out[f].kind = Source::Kind::kSensitive;
    }
  }
  return out;
}

void VehicleEvents::ResolveQis(const ingest::QiValues& qi, const dp::ValueIds& values,
                               const std::vector<Source>& sources, std::string* scratch, uint32_t* ids) const {
  for (size_t f = 0; f < sources.size(); ++f) {
    if (sources[f].kind != Source::Kind::kQi) continue;
    const QiLookup& lookup = settings_.qis[sources[f].qi];
    if (lookup.attr < qi.size()) {
      GeneralizeInto(*settings_.schema, lookup, qi[lookup.attr], scratch);
    } else {
      scratch->clear();
    }
    ids[f] = values.IdOf(f, *scratch);
  }
}

namespace {
// Walks the events of by_vehicle in order, starting `ahead` events in; null
// past the end.
class EventCursor {
 public:
  EventCursor(EventsByVehicle by_vehicle, size_t ahead) : by_vehicle_(by_vehicle) {
    for (size_t i = 0; i < ahead; ++i) Next();
  }
  const ingest::BufferedEvent* Next() {
    while (v_ < by_vehicle_.size() && k_ >= by_vehicle_[v_].size()) {
      ++v_;
      k_ = 0;
    }
    return v_ < by_vehicle_.size() ? by_vehicle_[v_][k_++] : nullptr;
  }

 private:
  EventsByVehicle by_vehicle_;
  size_t v_ = 0;
  size_t k_ = 0;
};
}  // namespace

void VehicleEvents::ForEach(EventsByVehicle by_vehicle, const dp::ValueIds& values, const Fn& fn) const {
  const std::vector<Source> sources = Sources(values);
  const auto s = static_cast<size_t>(sensitive_extra_);
  // The QI fields' ids of the QI copy met last: a vehicle's events share
  // one copy (and vehicles with the same QIs may), generalized once.
  std::vector<uint32_t> qi_ids(sources.size());
  const ingest::QiValues* last_qi = nullptr;
  std::string label;
  dp::ResolvedEvents resolved;  // reused: no allocation per vehicle
  // An event's extras are an allocation of their own, apart from the event:
  // reading the sensitive value missed the cache on most events (two thirds
  // of this loop's time, perf of bench_release_e2e). Two cursors run ahead
  // of the loop: one fetches the event 8 ahead, whose extras the other
  // fetches 4 events later.
  const bool reads_sensitive =
      sensitive_extra_ >= 0 &&
      std::any_of(sources.begin(), sources.end(), [](const Source& x) { return x.kind == Source::Kind::kSensitive; });
  EventCursor far(by_vehicle, 8), near(by_vehicle, 4);
  for (const std::vector<const ingest::BufferedEvent*>& events : by_vehicle) {
    if (events.empty()) continue;
    resolved.Reset(sources.size(), events.size());
    for (size_t k = 0; k < events.size(); ++k) {
      const ingest::BufferedEvent* e = events[k];
      if (reads_sensitive) {
        if (const ingest::BufferedEvent* ahead = far.Next()) ingest::PrefetchEvent(*ahead);
        if (const ingest::BufferedEvent* ahead = near.Next()) ingest::PrefetchExtra(*ahead, s);
      }
      if (last_qi == nullptr || !e->qi_values.SharesWith(*last_qi)) {
        ResolveQis(e->qi_values, values, sources, &label, qi_ids.data());
        last_qi = &e->qi_values;
      }
      uint32_t* ids = resolved.Set(k, e->ts_ms, Bytes(e->trip_key));
      for (size_t f = 0; f < sources.size(); ++f) {
        switch (sources[f].kind) {
          case Source::Kind::kEventName:
            ids[f] = values.IdOf(f, e->event);
            break;
          case Source::Kind::kQi:
            ids[f] = qi_ids[f];
            break;
          case Source::Kind::kSensitive:
            ids[f] = sensitive_extra_ >= 0 && s < e->extras.size() && e->extras[s].has_value()
                         ? values.IdOf(f, *e->extras[s])
                         : dp::ValueIds::kMissing;
            break;
          case Source::Kind::kMissing:
            ids[f] = dp::ValueIds::kMissing;
            break;
        }
      }
    }
    fn(Bytes(events.front()->vehicle_key), resolved);
  }
}

}  // namespace vanon::service
