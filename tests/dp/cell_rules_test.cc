// The cell every counter puts an event in, checked against the rules of
// docs/dp.md ("Queries and cells") written out plainly over strings: a
// counter alone (its own ValueIds), the counters of a DpRelease (the plan's
// ValueIds, where other queries intern values of the same fields), and
// counters gathered elsewhere handed to a DpRelease; and a DP window's
// counters, which share one ValueIds as the service binds them.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "vanon/dp/bounded_counter.h"
#include "vanon/dp/dp_release.h"
#include "vanon/dp/value_ids.h"
#include "vanon/dp/window_counter.h"

namespace vanon::dp {
namespace {

constexpr int64_t kStart = 0;
constexpr int64_t kEnd = 1000;

// Every filter pair holds ("event": the event's name; "qi:<name>": that QI,
// missing fails); then per dimension: a time bucket counts [start, end) in
// buckets from the start, the last one partial; any other dimension reads
// the name, the sensitive value or the QI: missing is out of domain, a
// listed value is its position, any other the last cell with
// others_in_last, else out of domain. Cells in row-major order.
int64_t ReferenceCell(const CountQuery& q, const DpEvent& e) {
  for (const auto& [key, value] : q.filter) {
    const std::string* v = key == "event" ? &e.name : e.Qi(key.substr(3));
    if (v == nullptr || *v != value) return BoundedCounter::kNoMatch;
  }
  int64_t index = 0;
  for (const Dimension& d : q.dimensions) {
    int64_t size = static_cast<int64_t>(d.domain.size());
    int64_t pos = 0;
    if (d.kind == Dimension::Kind::kTimeBucket) {
      size = (kEnd - kStart + d.bucket_ms - 1) / d.bucket_ms;
      if (e.ts_ms < kStart || e.ts_ms >= kEnd) return BoundedCounter::kOutOfDomain;
      pos = (e.ts_ms - kStart) / d.bucket_ms;
    } else {
      const std::string* v = d.kind == Dimension::Kind::kEvent       ? &e.name
                             : d.kind == Dimension::Kind::kSensitive ? e.Qi(kSensitiveKey)
                                                                     : e.Qi(d.qi);
      if (v == nullptr) return BoundedCounter::kOutOfDomain;
      auto it = std::find(d.domain.begin(), d.domain.end(), *v);
      if (it != d.domain.end()) {
        pos = it - d.domain.begin();
      } else if (d.others_in_last) {
        pos = size - 1;
      } else {
        return BoundedCounter::kOutOfDomain;
      }
    }
    index = index * size + pos;
  }
  return index;
}

// Unbounded in effect (C and L above anything one vehicle does here), so
// that a counter's counts are the histogram of its events' cells.
DpPlan RulesPlan() {
  Dimension region{Dimension::Kind::kQi, "region", {"north", "south", "east"}, 0, false};
  Dimension region_others{Dimension::Kind::kQi, "region", {"north", "other"}, 0, true};
  Dimension engine{Dimension::Kind::kQi, "event", {"EV", "Gas"}, 0, false};     // a QI called "event"
  Dimension odd{Dimension::Kind::kQi, "(event)", {"media", "door"}, 0, false};  // spelt as no config allows
  Dimension name{Dimension::Kind::kEvent, "", {"trip_start", "media", "charge"}, 0, false};
  Dimension sensitive{Dimension::Kind::kSensitive, "", {"jazz", "rock", "other"}, 0, true};
  Dimension bucket{Dimension::Kind::kTimeBucket, "", {}, 300, false};  // 0, 300, 600, 900 (partial)
  const ContributionBounds all{1000, 1000};
  DpPlan plan;
  plan.counts.push_back({"by_region", CountUnit::kEvents, {region}, {}, all});
  plan.counts.push_back({"by_region_others_name", CountUnit::kEvents, {region_others, name}, {}, all});
  plan.counts.push_back({"media_by_song", CountUnit::kEvents, {sensitive}, {{"event", "media"}}, all});
  plan.counts.push_back({"south_by_time", CountUnit::kEvents, {bucket}, {{"qi:region", "south"}}, all});
  plan.counts.push_back({"ev_by_engine_time", CountUnit::kEvents, {engine, bucket}, {{"qi:event", "EV"}}, all});
  plan.counts.push_back({"by_odd_qi", CountUnit::kEvents, {odd, name}, {}, all});
  plan.counts.push_back({"by_name_odd_filter", CountUnit::kEvents, {name}, {{"qi:(event)", "media"}}, all});
  RatioQuery kpi;
  kpi.name = "media_share";
  kpi.numerator = {"media_events", CountUnit::kEvents, {region, bucket}, {{"event", "media"}}, all};
  kpi.denominator = {"events", CountUnit::kEvents, {region, bucket}, {}, all};
  plan.ratios.push_back(kpi);
  plan.selection_key = 3;
  return plan;
}

std::vector<CountQuery> Measurements(const DpPlan& plan) {
  std::vector<CountQuery> out = plan.counts;
  for (const RatioQuery& r : plan.ratios) {
    out.push_back(r.numerator);
    out.push_back(r.denominator);
  }
  return out;
}

// One vehicle's events: values in and outside the domains, missing fields,
// times at and around every bucket edge and outside the epoch.
std::vector<DpEvent> VehicleEvents(std::mt19937& gen) {
  static const char* regions[] = {"north", "south", "east", "west", ""};
  static const char* names[] = {"trip_start", "media", "charge", "door"};
  static const char* songs[] = {"jazz", "rock", "other", "polka"};
  static const char* odd[] = {"media", "door", "charge"};
  static const int64_t edges[] = {-1, 0, 1, 299, 300, 599, 600, 899, 900, 999, 1000, 1001};
  auto pick = [&](int n) { return static_cast<int>(gen() % static_cast<unsigned>(n)); };
  std::vector<DpEvent> events;
  const int n = 1 + pick(10);
  for (int k = 0; k < n; ++k) {
    DpEvent e;
    e.trip = "t" + std::to_string(pick(3));
    e.name = names[pick(4)];
    e.ts_ms = pick(2) == 0 ? edges[pick(12)] : pick(1100) - 50;
    if (pick(10) > 0) e.qi.emplace_back("region", regions[pick(5)]);
    if (pick(10) > 0) e.qi.emplace_back("event", pick(3) == 0 ? "Hybrid" : pick(2) == 0 ? "EV" : "Gas");
    if (pick(2) > 0) e.qi.emplace_back("(event)", odd[pick(3)]);
    if (pick(3) > 0) e.qi.emplace_back(kSensitiveKey, songs[pick(4)]);
    events.push_back(std::move(e));
  }
  return events;
}

struct Expected {
  std::vector<uint64_t> counts;
  uint64_t out_of_domain = 0;
};

void Tally(const CountQuery& q, const std::vector<DpEvent>& events, Expected* want) {
  for (const DpEvent& e : events) {
    const int64_t cell = ReferenceCell(q, e);
    if (cell == BoundedCounter::kOutOfDomain) ++want->out_of_domain;
    if (cell >= 0) ++want->counts.at(static_cast<size_t>(cell));
  }
}

void ExpectCounts(const std::vector<BoundedCounter>& got, const std::vector<Expected>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(got[i].query().name);
    EXPECT_EQ(got[i].counts(), want[i].counts);
    EXPECT_EQ(got[i].stats().out_of_domain, want[i].out_of_domain);
    EXPECT_EQ(got[i].stats().cut(), 0u);
  }
}

TEST(CellRules, EveryCounterPutsEachEventInTheCellTheRulesName) {
  const DpPlan plan = RulesPlan();
  const std::optional<std::string> invalid = ValidatePlan(plan, kEnd - kStart);
  ASSERT_FALSE(invalid.has_value()) << *invalid;
  const std::vector<CountQuery> queries = Measurements(plan);

  DpRelease release(plan, 1, kStart, kEnd);
  std::vector<BoundedCounter> alone, early;  // early: the first half of the vehicles
  std::vector<Expected> want(queries.size()), want_early(queries.size());
  for (size_t i = 0; i < queries.size(); ++i) {
    alone.emplace_back(queries[i], kStart, kEnd, plan.selection_key);
    early.emplace_back(queries[i], kStart, kEnd, plan.selection_key);
    want[i].counts.assign(alone[i].num_cells(), 0);
    want_early[i].counts.assign(alone[i].num_cells(), 0);
  }
  std::vector<std::vector<DpEvent>> vehicles;
  std::mt19937 gen(5);
  for (int v = 0; v < 300; ++v) vehicles.push_back(VehicleEvents(gen));

  // Event by event, through each counter's own values and the plan's.
  const std::vector<BoundedCounter>& in_release = release.counters();
  for (const std::vector<DpEvent>& events : vehicles) {
    for (size_t i = 0; i < queries.size(); ++i) {
      for (const DpEvent& e : events) {
        const int64_t want_cell = ReferenceCell(queries[i], e);
        ASSERT_EQ(alone[i].CellOf(e), want_cell) << queries[i].name;
        ASSERT_EQ(in_release[i].CellOf(e), want_cell) << queries[i].name;
      }
    }
  }

  // Counted: alone, in a release, and gathered elsewhere then continued in
  // a release.
  for (size_t v = 0; v < vehicles.size(); ++v) {
    const std::string vehicle = "v" + std::to_string(v);
    release.AddVehicle(vehicle, vehicles[v]);
    for (size_t i = 0; i < queries.size(); ++i) {
      alone[i].AddVehicle(vehicle, vehicles[v]);
      Tally(queries[i], vehicles[v], &want[i]);
      if (v < vehicles.size() / 2) {
        early[i].AddVehicle(vehicle, vehicles[v]);
        Tally(queries[i], vehicles[v], &want_early[i]);
      }
    }
  }
  ExpectCounts(early, want_early);
  DpRelease gathered(plan, 2, std::move(early));
  for (size_t v = vehicles.size() / 2; v < vehicles.size(); ++v)
    gathered.AddVehicle("v" + std::to_string(v), vehicles[v]);
  ExpectCounts(alone, want);
  ExpectCounts(release.counters(), want);
  ExpectCounts(gathered.counters(), want);
  for (const Expected& w : want) {
    EXPECT_GT(w.out_of_domain, 0u);
    EXPECT_GT(*std::max_element(w.counts.begin(), w.counts.end()), 10u);
  }
}

// The plan's queries with tight bounds and every unit, so that which cells a
// vehicle keeps over the window (first come, then the keyed hash) matters.
std::vector<CountQuery> BoundedQueries(const DpPlan& plan) {
  std::vector<CountQuery> out;
  const CountUnit units[] = {CountUnit::kEvents, CountUnit::kTrips, CountUnit::kVehicles};
  for (const CountQuery& q : Measurements(plan)) {
    for (CountUnit unit : units) {
      CountQuery b = q;
      b.name += "_" + std::to_string(static_cast<int>(unit));
      b.unit = unit;
      b.bounds = {2, 2};
      out.push_back(std::move(b));
    }
  }
  return out;
}

// A DP window's counters bound to one ValueIds, each vehicle's events
// resolved once for all of them and hashed once (AddVehicleToAll, as the
// service's WindowGatherer adds them), keep the same cells, counts, stats
// and per-vehicle state as the same counters standing alone, over several
// epochs of a vehicle; and each event's resolved cell is the one the rules
// name.
TEST(CellRules, WindowCountersSharingValuesCountAsCountersAlone) {
  const std::vector<CountQuery> queries = BoundedQueries(RulesPlan());
  const uint64_t key = RulesPlan().selection_key;
  std::vector<WindowCounter> alone, shared;
  for (const CountQuery& q : queries) {
    ASSERT_FALSE(ValidateQuery(q, kEnd - kStart).has_value()) << q.name;
    alone.emplace_back(q, kStart, kEnd, key);
    shared.emplace_back(q, kStart, kEnd, key);
  }
  auto values = std::make_shared<ValueIds>();
  for (WindowCounter& c : shared) c.Bind(values);

  std::mt19937 gen(11);
  ResolvedEvents resolved;
  std::vector<int64_t> cells;
  uint64_t cut = 0;
  for (int epoch = 0; epoch < 3; ++epoch) {
    for (int v = 0; v < 200; ++v) {
      if (gen() % 3 == 0) continue;  // not in this epoch
      const std::string vehicle = "v" + std::to_string(v);
      const std::vector<DpEvent> events = VehicleEvents(gen);
      values->ResolveAll(events, &resolved);
      ASSERT_EQ(resolved.size(), events.size());
      ASSERT_EQ(resolved.stride(), values->fields());
      for (size_t i = 0; i < queries.size(); ++i) {
        shared[i].counter().ResolvedCells(resolved, &cells);
        ASSERT_EQ(cells.size(), events.size());
        for (size_t k = 0; k < events.size(); ++k) {
          ASSERT_EQ(cells[k], ReferenceCell(queries[i], events[k])) << queries[i].name;
        }
        alone[i].AddVehicle(vehicle, events);
      }
      WindowCounter::AddVehicleToAll(shared, vehicle, resolved);
    }
  }
  for (size_t i = 0; i < queries.size(); ++i) {
    SCOPED_TRACE(queries[i].name);
    EXPECT_EQ(shared[i].Serialize(), alone[i].Serialize());
    EXPECT_EQ(shared[i].counter().counts(), alone[i].counter().counts());
    cut += alone[i].counter().stats().cut();
    EXPECT_GT(alone[i].counter().stats().out_of_domain, 0u);
  }
  EXPECT_GT(cut, 100u);  // the bounds were met: which cells are kept was decided
}

}  // namespace
}  // namespace vanon::dp
