// The DP state records (the `dp_*` meta values of the state, and the exact
// partial counts the aggregation topic carries between instances): budget
// ledger entries, running-total tree counters, DP window counters (totals,
// whole counters, one vehicle's cells), partials, the global marks beside
// them on the aggregation topic, the aggregation index, and epsilon values.
// Input: one record; every text decoder reads it line by line, the ledger
// decoder reads it as entries.
//
// Invariants: a decoded record encodes to what decodes to the same record
// again; what the service does right after loading one (add a release to a
// tree counter, add a vehicle's events to a window counter, add a partial to
// a sum, continue after a global mark's window and record its charge in the
// ledger) has no undefined behaviour and gets what it needs.
#include <charconv>
#include <sstream>
#include <vector>

#include "base/hex.h"
#include "fuzz_support.h"
#include "fuzz_targets.h"
#include "service/dp/dp_partial.h"
#include "vanon/dp/epsilon.h"
#include "vanon/dp/ledger_store.h"
#include "vanon/dp/random_source.h"
#include "vanon/dp/tree_counter.h"
#include "vanon/dp/window_counter.h"

namespace vanon::fuzz {

namespace {

constexpr size_t kLedgerEntryBytes = 24;
constexpr int64_t kWindowMs = 30000;

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t at = 0; at <= text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

bool CheckLedger(std::string_view value) {
  if (value.size() % kLedgerEntryBytes != 0) return false;
  for (size_t at = 0; at < value.size(); at += kLedgerEntryBytes) {
    const std::string_view bytes = value.substr(at, kLedgerEntryBytes);
    const std::optional<dp::LedgerEntry> e = dp::DecodeLedgerEntry(bytes);
    if (!e) return false;
    Check(dp::EncodeLedgerEntry(*e) == bytes && e->epsilon_nanos >= 0, "a ledger entry is not its encoding");
  }
  return true;
}

bool CheckTree(std::string_view line) {
  std::optional<dp::TreeCounter> c = dp::TreeCounter::Deserialize(line);
  if (!c) return false;
  const std::string text = c->Serialize();
  const std::optional<dp::TreeCounter> again = dp::TreeCounter::Deserialize(text);
  Check(again && again->Serialize() == text, "a tree counter does not decode to what it encodes");
  (void)c->Current();
  dp::SeededRandomSource rng(1);
  for (int i = 0; i < 3 && c->releases() < c->horizon(); ++i) {
    Check(c->Add(1, rng).has_value(), "a tree counter below its horizon refuses a release");
  }
  return true;
}

}  // namespace

// The demo's kinds of queries: events by name and time bucket, distinct
// trips by a QI.
std::vector<dp::WindowCounter> DpWindowCounters() {
  dp::CountQuery events;
  events.name = "events_by_name";
  dp::Dimension name;
  name.domain = {"trip_started", "trip_ended", "vehicle_speed", "location", "media_track_changed"};
  dp::Dimension bucket;
  bucket.kind = dp::Dimension::Kind::kTimeBucket;
  bucket.bucket_ms = 10000;
  events.dimensions = {name, bucket};
  events.bounds = {2, 4};
  dp::CountQuery trips;
  trips.name = "trips_by_engine";
  trips.unit = dp::CountUnit::kTrips;
  dp::Dimension engine;
  engine.kind = dp::Dimension::Kind::kQi;
  engine.qi = "engine";
  engine.domain = {"EV", "Gas", "*"};
  trips.dimensions = {engine};
  trips.bounds = {2, 2};
  return {dp::WindowCounter(events, 0, kWindowMs, 7), dp::WindowCounter(trips, 0, kWindowMs, 7)};
}

namespace {

void AddEvents(dp::WindowCounter* c, const std::string& vehicle) {
  std::vector<dp::DpEvent> events(3);
  for (size_t i = 0; i < events.size(); ++i) {
    events[i].vehicle = vehicle;
    events[i].trip = "trip" + std::to_string(i);
    events[i].name = i == 0 ? "trip_started" : "location";
    events[i].ts_ms = static_cast<int64_t>(i) * 10000;
    events[i].qi = {{"engine", i == 2 ? "Gas" : "EV"}};
  }
  c->AddVehicle(vehicle, events);
}

// Every way a window counter line is read, into fresh counters.
void CheckWindowLine(std::string_view line) {
  const std::string vehicle(32, 'v');
  for (dp::WindowCounter c : DpWindowCounters()) {
    if (c.RestoreTotals(line)) {
      const std::string text = c.SerializeTotals();
      Check(c.RestoreTotals(text) && c.SerializeTotals() == text, "window totals do not decode stably");
      AddEvents(&c, vehicle);
    }
  }
  for (dp::WindowCounter c : DpWindowCounters()) {
    if (c.Restore(line)) {
      const std::string text = c.Serialize();
      Check(c.Restore(text) && c.Serialize() == text, "a window counter does not decode stably");
      AddEvents(&c, vehicle);
    }
  }
  for (dp::WindowCounter c : DpWindowCounters()) {
    if (c.RestoreVehicle(vehicle, line)) {
      const std::string text = c.SerializeVehicle(vehicle);
      Check(c.RestoreVehicle(vehicle, text) && c.SerializeVehicle(vehicle) == text,
            "a vehicle's window cells do not decode stably");
      AddEvents(&c, vehicle);
    }
  }
}

bool CheckPartial(std::string_view value) {
  const std::optional<service::DpPartial> p = service::DecodePartial(value);
  if (!p) return false;
  const std::string text = service::EncodePartial(*p);
  const std::optional<service::DpPartial> again = service::DecodePartial(text);
  Check(again && service::EncodePartial(*again) == text, "a DP partial does not decode stably");
  service::DpPartial sum;
  Check(service::AddPartial(*p, &sum) && service::AddPartial(*p, &sum), "a partial does not add to its own shape");
  return true;
}

// A global mark is read from the partial topic by whichever partition
// aggregates next (GlobalCounts::AdoptMark): it continues after the mark's
// window and records the mark's charge in its ledger.
bool CheckGlobalMark(std::string_view value) {
  const std::optional<service::GlobalMark> m = service::DecodeGlobalMark(value);
  if (!m) return false;
  const std::string text = service::EncodeGlobalMark(*m);
  const std::optional<service::GlobalMark> again = service::DecodeGlobalMark(text);
  Check(again && service::EncodeGlobalMark(*again) == text, "a global mark does not decode stably");
  Check(m->window < INT64_MAX, "a global mark's window has no next window");
  const std::optional<dp::LedgerEntry> charge = dp::DecodeLedgerEntry(dp::EncodeLedgerEntry(m->charge));
  Check(charge && *charge == m->charge, "a global mark's charge is no ledger entry");
  return true;
}

bool CheckAggregateIndex(std::string_view value) {
  service::DpAggregateState s;
  if (!s.DecodeIndex(value)) return false;
  const std::string text = s.EncodeIndex();
  service::DpAggregateState again;
  Check(again.DecodeIndex(text) && again.EncodeIndex() == text, "the aggregation index does not decode stably");
  return true;
}

void CheckEpsilon(std::string_view text) {
  const std::optional<dp::Epsilon> e = dp::Epsilon::Parse(text);
  if (!e) return;
  Check(e->nanos() >= 0, "a parsed epsilon is negative");
  const std::optional<dp::Epsilon> again = dp::Epsilon::Parse(e->ToString());
  Check(again && again->nanos() == e->nanos(), "an epsilon does not print as what it parses");
}

}  // namespace

bool CheckDpMetaRecord(std::string_view name, std::string_view value) {
  if (name == "dp_ledger") return CheckLedger(value);
  if (name == "dp_agg") return CheckAggregateIndex(value);
  if (name.substr(0, 7) == "dp_agg/") return CheckPartial(value);
  if (name.substr(0, 8) == "dp_tree/") {
    bool all = true;
    for (std::string_view line : Lines(value)) all = CheckTree(line) && all;
    return all;
  }
  if (name == "dp_window" || name.substr(0, 6) == "dp_wv/") {
    for (std::string_view line : Lines(value)) CheckWindowLine(line);
    return true;
  }
  if (name.substr(0, 6) == "dp_wk/") {
    std::istringstream in{std::string(value)};
    std::string hex, vehicle;
    while (in >> hex) (void)base::HexDecode(hex, &vehicle);
  }
  return true;
}

void FuzzDpRecords(std::string_view input) {
  CheckLedger(input);
  CheckPartial(input);
  CheckGlobalMark(input);
  CheckAggregateIndex(input);
  // Records are one to a few lines; reading every line of a mutated input
  // into six window counters made the fuzzer ten times slower.
  const std::vector<std::string_view> lines = Lines(input);
  for (size_t i = 0; i < lines.size() && i < 8; ++i) {
    CheckTree(lines[i]);
    CheckWindowLine(lines[i]);
    CheckEpsilon(lines[i]);
  }
}

}  // namespace vanon::fuzz
