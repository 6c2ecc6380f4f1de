// The DP counts read buffered events without writing them out as DpEvents
// (dp_vehicles.h): each event's resolved fields must be what the counters'
// ValueIds resolve from the DpEvent that docs/dp.md's conversion gives,
// written out here plainly over strings; and grouping by vehicle, however
// the caller orders a vehicle's events, must not change a record.
#include "service/dp/dp_vehicles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "dp_fixture.h"
#include "vanon/dp/dp_release.h"
#include "vanon/release/schema_from_config.h"

namespace vanon::service {
namespace {

using dp_test::TempDir;

constexpr int kSensitiveExtra = 1;

// The fixture's QIs and queries, plus one on the sensitive value and one
// filtered on a QI.
config::Config VehiclesConfig(const TempDir& dir) {
  config::Config c = dp_test::TestConfig(dir);
  c.dp.sensitive_values = {"jazz", "rock"};
  c.dp.queries.push_back({"events_by_song", config::DpCount::kEvents, {"sensitive", "event"}, {}});
  c.dp.queries.push_back({"bev_trips_by_seats", config::DpCount::kTrips, {"qi:seats"}, {{"qi:engine", "BEV"}}});
  return c;
}

std::string Bytes(const ingest::HmacToken& t) { return std::string(reinterpret_cast<const char*>(t.data()), t.size()); }

// A buffered event as the counters read it: its name, time and trip; every
// QI a query uses, generalized as the release's tuples are (a categorical
// value as it is, a numeric one to its bin's label, "" when it has no exact
// code or the event lacks it); the raw sensitive value when a query counts
// it and the event carries it.
dp::DpEvent Reference(const DpSettings& s, const ingest::BufferedEvent& e) {
  dp::DpEvent d;
  d.trip = Bytes(e.trip_key);
  d.name = e.event;
  d.ts_ms = e.ts_ms;
  for (const QiLookup& q : s.qis) {
    std::string label;
    if (q.attr < e.qi_values.size()) {
      const std::string& raw = e.qi_values[q.attr];
      const engine::QiAttribute& a = s.schema->attribute(q.attr);
      if (a.IsCategorical()) {
        label = raw;
      } else if (auto code = release::NumericQiCode(q.config, a.numeric, raw)) {
        label = s.schema->Label(q.attr, s.schema->Generalize(q.attr, *code, *code));
      }
    }
    d.qi.emplace_back(q.name, label);
  }
  if (s.counts_sensitive && kSensitiveExtra < static_cast<int>(e.extras.size()) && e.extras[kSensitiveExtra]) {
    d.qi.emplace_back(dp::kSensitiveKey, *e.extras[kSensitiveExtra]);
  }
  return d;
}

// Vehicles whose events share one QI copy, or carry copies of their own
// (the QIs changed in the epoch), or one copy with other vehicles; values in
// and outside the domains, QIs missing, numbers without an exact code, the
// sensitive value present, absent or out of the extras.
std::vector<ingest::BufferedEvent> MixedEvents(std::mt19937& gen) {
  static const char* engines[] = {"Petrol", "Diesel", "BEV", "PHEV", "Hydrogen", ""};
  static const char* seats[] = {"2", "4", "5", "9", "10", "1", "x", "", "4.5"};
  static const char* names[] = {"touchscreen_used", "door_open", "media", ""};
  static const char* songs[] = {"jazz", "rock", "polka", ""};
  auto pick = [&](int n) { return static_cast<int>(gen() % static_cast<unsigned>(n)); };
  auto qis = [&] {
    if (pick(8) == 0) return ingest::QiValues({engines[pick(6)]});  // seats missing
    return ingest::QiValues({engines[pick(6)], seats[pick(9)]});
  };
  const ingest::QiValues pooled = qis();
  std::vector<ingest::BufferedEvent> out;
  for (int v = 0; v < 120; ++v) {
    const ingest::QiValues mine = pick(5) == 0 ? pooled : qis();
    const bool changes = pick(4) == 0;
    for (int k = 0, n = 1 + pick(8); k < n; ++k) {
      ingest::BufferedEvent e;
      e.vehicle_key.fill(0);
      e.vehicle_key[0] = static_cast<uint8_t>(v * 7 % 120);  // keys not in the order of the vehicles
      e.trip_key = e.vehicle_key;
      e.trip_key[31] = static_cast<uint8_t>(pick(3));
      e.ts_ms = pick(dp_test::kEpochMs + 2000) - 1000;
      e.event = names[pick(4)];
      e.qi_values = changes && pick(2) == 0 ? qis() : mine;
      const int extras = pick(4);
      if (extras > 0) e.extras.resize(static_cast<size_t>(extras));
      if (extras > 1 && pick(3) > 0) e.extras[1] = songs[pick(4)];
      out.push_back(std::move(e));
    }
  }
  std::shuffle(out.begin(), out.end(), gen);
  return out;
}

TEST(DpVehiclesTest, ResolvesEachEventAsItsDpEventWrittenOut) {
  TempDir dir("vehicles");
  const DpSettings s = DpSettingsFromConfig(VehiclesConfig(dir), dp_test::kHmacKey);
  ASSERT_TRUE(s.counts_sensitive);
  const dp::DpRelease release(s.plan, 0, 0, dp_test::kEpochMs);
  const dp::ValueIds& values = release.values();
  ASSERT_EQ(values.fields(), 4u);  // name, engine, seats, sensitive
  VehicleEvents vehicles(s);
  vehicles.SetSensitiveExtra(kSensitiveExtra);

  std::mt19937 gen(17);
  size_t checked = 0, distinct = 0;
  for (int round = 0; round < 5; ++round) {
    const std::vector<ingest::BufferedEvent> events = MixedEvents(gen);
    const auto groups = GroupByVehicle(events);
    std::string last_vehicle;
    size_t seen = 0, group = 0;
    std::vector<uint32_t> want(values.fields());
    vehicles.ForEach(groups, values, [&](std::string_view vehicle, const dp::ResolvedEvents& got) {
      const std::vector<const ingest::BufferedEvent*>& mine = groups[group++];
      EXPECT_EQ(vehicle, Bytes(mine.front()->vehicle_key));
      EXPECT_LT(last_vehicle, std::string(vehicle));  // each vehicle once, in key order
      last_vehicle = vehicle;
      ASSERT_EQ(got.size(), mine.size());
      ASSERT_EQ(got.stride(), values.fields());
      for (size_t k = 0; k < mine.size(); ++k) {
        EXPECT_EQ(Bytes(mine[k]->vehicle_key), vehicle);
        values.Resolve(Reference(s, *mine[k]), want.data());
        EXPECT_EQ(std::vector<uint32_t>(got.ids(k), got.ids(k) + got.stride()), want) << "event " << k;
        EXPECT_EQ(got.ts_ms(k), mine[k]->ts_ms);
        EXPECT_EQ(got.trip(k), Bytes(mine[k]->trip_key));
        distinct += want[1] != dp::ValueIds::kOther && want[1] != dp::ValueIds::kMissing;
      }
      seen += mine.size();
      checked += mine.size();
    });
    EXPECT_EQ(group, groups.size());
    EXPECT_EQ(seen, events.size());
  }
  EXPECT_GT(checked, 1000u);
  EXPECT_GT(distinct, 100u);  // the inputs reach the cells, not only "other"
}

// Compute over the release share's grouping (each vehicle's events in time
// order, as its tuple lists them) publishes what Compute over the flat
// events does, in both modes: same records and state changes.
TEST(DpVehiclesTest, GroupedAndFlatEventsPublishTheSame) {
  for (const int64_t window_seconds : {int64_t{0}, 3 * dp_test::kEpochMs / 1000}) {
    SCOPED_TRACE(window_seconds);
    TempDir dir("grouped");
    config::Config c = VehiclesConfig(dir);
    c.dp.window_seconds = window_seconds;
    c.dp.budget_epsilon = 1;  // per-release counts and running totals charge apart
    dp_test::DpService flat(c, dir.Sub("flat")), grouped(c, dir.Sub("grouped"));
    flat.dp->SetSensitiveExtra(kSensitiveExtra);
    grouped.dp->SetSensitiveExtra(kSensitiveExtra);
    std::mt19937 gen(23);
    size_t records = 0;
    for (int64_t epoch = 0; epoch < 3; ++epoch) {
      std::vector<ingest::BufferedEvent> events = MixedEvents(gen);
      for (ingest::BufferedEvent& e : events)
        e.ts_ms = epoch * dp_test::kEpochMs + (e.ts_ms + 1000) % dp_test::kEpochMs;
      auto groups = GroupByVehicle(events);
      for (auto& g : groups) {
        std::stable_sort(g.begin(), g.end(), [](auto* a, auto* b) { return a->ts_ms < b->ts_ms; });
      }
      const int64_t start = epoch * dp_test::kEpochMs, end = start + dp_test::kEpochMs;
      release::SeedStream ra(dp_test::SeedOf(static_cast<uint8_t>(epoch)));
      release::SeedStream rb(dp_test::SeedOf(static_cast<uint8_t>(epoch)));
      const DpPublisher::Result a = flat.dp->Compute(0, epoch, start, end, events, ra);
      const DpPublisher::Result b = grouped.dp->Compute(0, epoch, start, end, groups, rb);
      EXPECT_EQ(a.records, b.records);
      EXPECT_EQ(a.meta, b.meta);
      EXPECT_EQ(a.meta_deleted, b.meta_deleted);
      records += a.records.size() + a.meta.size();
      flat.Commit(0, a);
      grouped.Commit(0, b);
    }
    EXPECT_GT(records, 0u);
  }
}

}  // namespace
}  // namespace vanon::service
