#include "vanon/release/tuple_builder.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "vanon/ingest/vehicle_order.h"
#include "vanon/release/schema_from_config.h"
#include "vanon/vehicle/decoded_vehicle.h"

namespace vanon::release {

TupleBuilder::TupleBuilder(const std::vector<config::QuasiIdentifier>& qis,
                           const std::optional<config::SensitiveConfig>& sensitive, const engine::Schema& schema,
                           int sensitive_extra, SensitiveDictionary* dictionary)
    : schema_(schema), qis_(qis), sensitive_(sensitive), sensitive_extra_(sensitive_extra), dictionary_(dictionary) {}

std::vector<int32_t> TupleBuilder::EncodeQi(const ingest::QiValues& qi_values, uint64_t* at_root) const {
  std::vector<int32_t> codes(schema_.size(), kIneligibleCode);
  if (qi_values.size() != schema_.size()) return codes;
  for (size_t a = 0; a < schema_.size(); ++a) {
    const engine::QiAttribute& attr = schema_.attribute(a);
    if (qi_values[a] == fleet::kUnknownAttribute) {
      codes[a] = engine::kUnknownQiCode;  // published under the root (privacy-model.md section 1)
      continue;
    }
    if (attr.IsCategorical()) {
      codes[a] = attr.hierarchy->LeafId(qi_values[a]).value_or(kIneligibleCode);
      continue;
    }
    if (a >= qis_.size()) continue;
    // A value with no exact code (not a number, out of range, too many
    // decimals) is not rounded into a neighbouring interval, which would
    // publish something false: like an unknown VIN, it takes the root.
    const std::optional<int32_t> code = NumericQiCode(qis_[a], attr.numeric, qi_values[a]);
    codes[a] = code.value_or(engine::kUnknownQiCode);
    if (!code) ++*at_root;
  }
  if (std::find(codes.begin(), codes.end(), kIneligibleCode) != codes.end()) {
    std::fill(codes.begin(), codes.end(), kIneligibleCode);
  }
  return codes;
}

std::optional<std::string> TupleBuilder::Aggregate(std::span<const ingest::BufferedEvent> events,
                                                   const std::vector<uint32_t>& order) const {
  const size_t idx = static_cast<size_t>(sensitive_extra_);
  auto value = [&](uint32_t i) -> const std::optional<std::string>& {
    static const std::optional<std::string> kNone;
    const ingest::BufferedEvent& e = events[i];
    return idx < e.extras.size() ? e.extras[idx] : kNone;
  };
  const config::SensitiveAggregator agg = sensitive_->aggregator;
  if (agg == config::SensitiveAggregator::kFirst) {
    for (uint32_t i : order) {
      if (value(i)) return value(i);
    }
  } else if (agg == config::SensitiveAggregator::kLast || agg == config::SensitiveAggregator::kRegistry) {
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      if (value(*it)) return value(*it);
    }
  } else {
    // value -> (count, rank of first occurrence)
    std::map<std::string_view, std::pair<uint64_t, size_t>> counts;
    for (size_t rank = 0; rank < order.size(); ++rank) {
      const auto& v = value(order[rank]);
      if (!v) continue;
      auto [it, inserted] = counts.try_emplace(*v, 0, rank);
      it->second.first++;
    }
    const std::string_view* best = nullptr;
    std::pair<uint64_t, size_t> best_score{0, 0};
    for (const auto& [v, score] : counts) {
      if (best == nullptr || score.first > best_score.first ||
          (score.first == best_score.first && score.second < best_score.second)) {
        best = &v;
        best_score = score;
      }
    }
    if (best != nullptr) return std::string(*best);
  }
  return sensitive_->missing_value;
}

std::vector<engine::ValueCount> TupleBuilder::Count(std::span<const ingest::BufferedEvent> events,
                                                    const std::vector<uint32_t>& order) const {
  std::vector<engine::ValueCount> counts;
  const size_t idx = static_cast<size_t>(sensitive_extra_);
  for (uint32_t i : order) {
    const ingest::BufferedEvent& e = events[i];
    if (idx >= e.extras.size() || !e.extras[idx]) continue;
    const engine::SensitiveId id = dictionary_->Intern(*e.extras[idx]);
    auto it = std::find_if(counts.begin(), counts.end(), [&](const engine::ValueCount& c) { return c.value == id; });
    if (it == counts.end()) {
      counts.push_back({id, 1});
    } else {
      ++it->count;
    }
  }
  return counts;
}

BuiltTuples TupleBuilder::Build(std::span<const ingest::BufferedEvent> events, const ValueChooser& choose) const {
  const ingest::VehicleRuns runs = ingest::RunsByVehicle(events, /*by_time=*/true);
  const std::vector<uint32_t>& order = runs.order;

  BuiltTuples out;
  out.tuples.reserve(runs.ends.size());
  out.events.reserve(runs.ends.size());
  out.problems.reserve(runs.ends.size());
  uint32_t begin = 0;
  // An event's extras are an allocation of their own, apart from the event:
  // reading the sensitive value missed the cache on most events (most of
  // Aggregate's time, perf of bench_release_e2e). Before a vehicle's events
  // are read, the events 16 ahead in `order` are fetched, and the extras of
  // those 8 ahead, fetched 8 events ago.
  const size_t idx = static_cast<size_t>(sensitive_extra_);
  size_t far = 16, near = 8;
  // The vehicles of one model share one QI list (QiValues): it is encoded
  // once per list, not once per tuple (looking labels up by string was
  // about 1,300 instructions a tuple).
  struct Encoded {
    std::vector<int32_t> codes;
    uint64_t at_root = 0;  // values that took the root for want of a code
  };
  std::unordered_map<const void*, Encoded> encoded_lists;
  for (const uint32_t end : runs.ends) {
    if (sensitive_extra_ >= 0) {
      for (uint32_t i = begin; i < end; ++i, ++far, ++near) {
        if (far < order.size()) ingest::PrefetchEvent(events[order[far]]);
        if (near < order.size()) ingest::PrefetchExtra(events[order[near]], idx);
      }
    }
    std::vector<uint32_t> mine(order.begin() + begin, order.begin() + end);
    const ingest::BufferedEvent& latest = events[mine.back()];

    engine::Tuple t;
    t.vehicle.assign(reinterpret_cast<const char*>(latest.vehicle_key.data()), latest.vehicle_key.size());
    auto [encoded, fresh] = encoded_lists.try_emplace(latest.qi_values.identity());
    if (fresh) encoded->second.codes = EncodeQi(latest.qi_values, &encoded->second.at_root);
    t.qi = encoded->second.codes;
    out.qi_at_root += encoded->second.at_root;
    t.events = static_cast<uint32_t>(std::min<size_t>(mine.size(), UINT32_MAX));
    TupleProblem problem = TupleProblem::kNone;
    if (!t.qi.empty() && t.qi[0] == kIneligibleCode) problem = TupleProblem::kUnknownQi;

    std::optional<engine::SensitiveId> value;
    if (sensitive_extra_ < 0 || !sensitive_) {
      value = dictionary_->Intern("");
    } else if (choose) {
      value = choose(t.vehicle, Count(events, mine));
    } else if (auto v = Aggregate(events, mine)) {
      value = dictionary_->Intern(*v);
    }
    if (value) {
      t.sensitive = *value;
    } else {
      if (!t.qi.empty()) t.qi[0] = kIneligibleCode;
      if (problem == TupleProblem::kNone) problem = TupleProblem::kMissingSensitive;
    }

    out.tuples.push_back(std::move(t));
    out.events.push_back(std::move(mine));
    out.problems.push_back(problem);
    begin = end;
  }
  return out;
}

}  // namespace vanon::release
