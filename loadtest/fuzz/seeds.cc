// vanon-fuzz-seeds DIR: writes a small seed corpus per fuzz harness into
// DIR/<harness>/ (tests/fuzz/corpus in the repository). Seeds are what the
// service really reads: fleet generator events, the repository's config,
// VIN table and hierarchies, and records written by the real encoders, so a
// fuzzer starts past the first checks of each decoder.
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <simdjson.h>

#include "base/coding.h"
#include "fuzz_support.h"
#include "fuzz_targets.h"
#include "service/collector/changelog_writer.h"
#include "service/dp/dp_partial.h"
#include "state/key_codec.h"
#include "vanon/config.h"
#include "vanon/dp/ledger_store.h"
#include "vanon/dp/random_source.h"
#include "vanon/dp/tree_counter.h"
#include "vanon/fleet/fleet_generator.h"
#include "vanon/ingest/buffered_event.h"
#include "vanon/ingest/event_parser.h"
#include "vanon/ingest/keyed_hasher.h"
#include "vanon/release/epoch_clock.h"
#include "vanon/release/sensitive_dictionary.h"
#include "vanon/state/partition_progress.h"
#include "vanon/state/release_state.h"
#include "vanon/vehicle/vin_decoder.h"

namespace vanon::fuzz {
namespace {

class Corpus {
 public:
  explicit Corpus(std::string dir) : dir_(std::move(dir)) {}
  void Add(const std::string& harness, const std::string& name, std::string_view bytes) {
    std::filesystem::create_directories(dir_ + "/" + harness);
    WriteFile(dir_ + "/" + harness + "/" + name, bytes);
    ++written_[harness];
  }
  void Report() const {
    for (const auto& [harness, n] : written_) std::cout << harness << ": " << n << " seeds\n";
  }

 private:
  std::string dir_;
  std::map<std::string, int> written_;
};

// Fleet messages: one accepted event of each name, one of each DLQ reason
// (too_large ones are left out: they are 64 KiB of filler).
std::vector<fleet::FleetMessage> FleetMessages() {
  const fleet::VinDecoder table = fleet::VinDecoder::Load(SourcePath("config/vehicle/vin-table.yaml"));
  fleet::FleetOptions options;
  options.vehicles = 50;
  options.seed = 7;
  options.invalid_fraction = 0.2;
  options.max_message_bytes = 65536;
  fleet::FleetGenerator gen(options, table);
  std::vector<fleet::FleetMessage> out;
  std::map<std::string, int> kinds;
  for (int i = 0; i < 200000 && kinds.size() < 17; ++i) {
    const fleet::FleetMessage& m = gen.Next();
    std::string kind;
    if (m.expected_reject) {
      if (*m.expected_reject == "too_large") continue;
      kind = "reject-" + std::string(*m.expected_reject);
    } else {
      simdjson::dom::parser p;
      std::string_view name;
      if (p.parse(simdjson::padded_string(m.value))["event"].get(name)) continue;
      kind = std::string(name);
    }
    if (kinds[kind]++ == 0) out.push_back(m);
  }
  return out;
}

std::string KindOf(const fleet::FleetMessage& m) {
  if (m.expected_reject) return "reject-" + std::string(*m.expected_reject);
  simdjson::dom::parser p;
  std::string_view name;
  if (p.parse(simdjson::padded_string(m.value))["event"].get(name)) return "event";
  return std::string(name);
}

void EventSeeds(Corpus& c, const std::vector<fleet::FleetMessage>& fleet) {
  for (const fleet::FleetMessage& m : fleet) c.Add("event_parser", "fleet-" + KindOf(m) + ".json", m.value);
  c.Add(
      "event_parser", "rfc3339.json",
      R"({"vin":"WBA7C5E10L0123456","trip_id":"t-1","ts":"2025-11-22T10:00:00.123+01:00","event":"location",)"
      R"("payload":{"location":{"lat":48.137,"lon":11.575},"speed_kmh":57.5,"artist":"Nina Simone","source":"gps"}})");
  c.Add("event_parser", "null-artist.json",
        R"({"vin":"WBA7C5E10L0123456","trip_id":"t-2","ts":1763805600123,"event":"media_track_changed",)"
        R"("payload":{"artist":null,"extra":[1,2,{"a":true}]},"unmapped":{"x":"y"}})");
  for (const fleet::FleetMessage& m : fleet) {
    if (m.expected_reject) continue;
    simdjson::dom::parser p;
    simdjson::dom::element payload;
    if (p.parse(simdjson::padded_string(m.value))["payload"].get(payload)) continue;
    c.Add("payload_transformer", "fleet-" + KindOf(m) + ".json", simdjson::minify(payload));
  }
  c.Add("payload_transformer", "nested.json",
        R"({"pos":{"gps":{"lat":-33.9,"lon":151.2,"alt":20},"speed":12.25,"secret":"x"},"a":{"b":{"c":1234.5}},)"
        R"("location":{"lat":90,"lon":-180},"speed_kmh":1e300,"source":{"kind":"can","bus":[1,2]}})");
}

void VehicleSeeds(Corpus& c) {
  c.Add("vin_table", "vin-table.yaml", ReadFile(SourcePath("config/vehicle/vin-table.yaml")));
  c.Add("vin_table", "position7.yaml",
        "model_year: {rule: position7}\nmanufacturers:\n  - wmi: 1HG\n    name: Honda\n    models:\n"
        "      - {vds: CM8*6, engine: Gas, body: Sedan, seats: 5}\n      - {vds: '*****', engine: EV, body: SUV, "
        "seats: 7}\n");
  c.Add("vin_table", "missing-models.yaml", "manufacturers:\n  - {wmi: WBA, name: BMW}\n");
  c.Add("vin_table", "flow.yaml",
        "{model_year: {rule: base_year, base_year: 1980}, manufacturers: [{wmi: W1K, name: \"Mercedes\", models: "
        "[{vds: ZF4HB, engine: Gas, body: Long Sedan, seats: 4}]}]}\n");
  c.Add("vin_table", "bad-seats.yaml",
        "manufacturers:\n  - wmi: WAU\n    name: Audi\n    models:\n      - {vds: TT2G1, engine: Gas, body: Sedan, "
        "seats: many}\n");
  c.Add("vehicle_registry", "plain.csv",
        "vin,manufacturer,engine,seats\nWBA7C5E10L0123456,BMW,Gas,5\nW1KZF4HB0M0123456,Mercedes-Benz,EV,4\n");
  c.Add("vehicle_registry", "quoted.csv",
        "\"engine\",vin,\"body, style\"\r\n\"Plug-in \"\"Hybrid\"\"\",WAUTT2G10N0123456,\"Long\nSedan\"\r\n"
        "EV,WAUGE4S10P0123456,SUV\r\n");
  c.Add("vehicle_registry", "no-key-column.csv", "id,engine\n1,EV\n");
  c.Add("vehicle_registry", "duplicate-key.csv", "vin,engine\nWBA7C5E10L0123456,EV\nWBA7C5E10L0123456,Gas\n");
  c.Add("vehicle_registry", "unterminated.csv", "vin,engine\nWBA7C5E10L0123456,\"EV\n");
  for (const auto& entry : std::filesystem::directory_iterator(SourcePath("config/hierarchies"))) {
    c.Add("hierarchy", entry.path().filename().string(), ReadFile(entry.path().string()));
  }
  for (const char* name : {"age", "education", "marital-status", "occupation", "workclass"}) {
    const std::string file = std::string("adult_hierarchy_") + name + ".csv";
    c.Add("hierarchy", file, ReadFile(SourcePath("data/adult/" + file)));
  }
  c.Add("hierarchy", "crlf-blank.csv", "a;x;*\r\nb;x;*\r\n\r\nc;y;*\r\n");
  c.Add("hierarchy", "leaf-and-inner.csv", "a;b;*\nb;c;*\n");
}

void ConfigSeeds(Corpus& c) {
  const std::string demo = ReadFile(SourcePath("config/demo.yaml"));
  c.Add("config", "demo.yaml", demo);
  c.Add("config", "vanon.yaml", ReadFile(SourcePath("config/vanon.yaml")));
  c.Add("config", "demo-overrides.yaml",
        demo +
            "\n#--set\nprivacy.m=7\nkafka.properties.sasl.username=u\nquasi_identifiers.3.bins.width=3\n"
            "dp.window_seconds=30\ndp.aggregation.topic=vanon.dp.partials\ninput.fields.vin=body.vin\n");
  c.Add("config", "bad-overrides.yaml",
        demo + "\n#--set\nprivacy.m=[1\nquasi_identifiers.9.name=x\nnoequals\n.a=1\nprivacy.m.x=1\n");
  c.Add("config", "k-anonymity.yaml",
        "kafka: {bootstrap: 'h:9092'}\nvehicle: {source: event_fields, fields: {engine: payload.engine}}\n"
        "quasi_identifiers:\n  - {name: engine, hierarchy: hierarchies/engine.csv}\n"
        "privacy: {model: k_anonymity, k: 3, l: 2}\nsensitive: {field: payload.artist}\n"
        "dp: {enabled: true, epsilon_per_release: '0.5', budget: {epsilon: 9223372036.854775807, period_days: 1}}\n");
}

// The changelog harness's input: key length, key, value.
std::string ChangelogInput(int32_t partition, state::StateFamily family, const std::string& store_key,
                           std::string_view value) {
  const std::string key = service::ChangelogKey(partition, {family, store_key, std::nullopt});
  return std::string(1, static_cast<char>(key.size())) + key + std::string(value);
}

void BufferedEventSeeds(Corpus& c, const std::vector<fleet::FleetMessage>& fleet) {
  ingest::FieldMapping mapping;
  mapping.extras = {"payload.artist", "payload.speed_kmh"};
  ingest::EventParser parser(mapping, ingest::ValidationLimits{});
  ingest::KeyedHasher hasher("fuzz seed key");
  int n = 0;
  for (const fleet::FleetMessage& m : fleet) {
    ingest::ParsedEvent e;
    ingest::Rejection r;
    if (!parser.Parse(m.key, m.value, m.ts_ms + 1000, &e, &r)) continue;
    ingest::BufferedEvent b;
    b.vehicle_key = hasher.Hash(e.vin);
    b.trip_key = hasher.Hash(e.trip_id);
    b.ts_ms = e.ts_ms;
    b.event = e.event;
    b.qi_values = std::vector<std::string>{"BMW", "Gas", "Sedan", "5", "2020"};
    b.extras = e.extras;
    b.payload_json = e.payload_json;
    std::string bytes;
    ingest::EncodeBufferedEvent(b, &bytes);
    c.Add("buffered_event", "fleet-" + KindOf(m) + ".bin", bytes);
    if (n++ == 0) {
      bytes[0] = static_cast<char>(ingest::kBufferedEventRawPayloadVersion);
      c.Add("buffered_event", "version1.bin", bytes);
      c.Add("changelog_record", "events.bin",
            ChangelogInput(3, state::StateFamily::kEvents, state::EventKey(3, e.ts_ms, 42), bytes));
    }
  }
  c.Add("buffered_event", "empty.bin", std::string(1, '\x02') + std::string(64 + 8, '\0') + std::string(4, '\0'));
}

void StateSeeds(Corpus& c) {
  const std::string vehicle(32, '\x5a');
  const state::StoredSignature sig{{1, 5, 9, 130, 70000}, -3, 12};
  c.Add("state_records", "signature.bin", sig.Encode());
  c.Add("state_records", "signature-empty.bin", state::StoredSignature{}.Encode());
  engine::WaitingTuple w;
  w.tuple.qi = {1, -1, 300, 7, 2020};
  w.tuple.sensitive = 77;
  w.tuple.events = 12;
  w.first_release = 176380560;
  c.Add("state_records", "waiting.bin", state::EncodeWaitingTuple(w));
  const std::vector<state::WaitingEvent> waiting_events = {{1763805600123, 41, "event bytes"}, {1763805601000, 42, ""}};
  c.Add("state_records", "waiting-with-events.bin", state::EncodeWaitingTuple(w, waiting_events));
  state::PartitionProgress p;
  p.next_offset = 1234;
  p.consumed = 1300;
  p.accepted = 1200;
  p.rejected = {{"broken_json", 60}, {"invalid_vin", 40}};
  p.replay_until = 1290;
  c.Add("state_records", "progress.txt", p.Encode());
  config::EpochConfig epoch;
  epoch.length_seconds = 10;
  epoch.allowed_lateness_seconds = 2;
  epoch.idle_timeout_seconds = 5;
  release::EpochClock clock(epoch);
  c.Add("state_records", "clock-fresh.bin", clock.EncodeState());
  clock.Observe(1763805600123, 1763805601000);
  clock.Observe(1763805613000, 1763805614000);
  c.Add("state_records", "clock.bin", clock.EncodeState());
  release::SensitiveDictionary dict;
  for (const char* v : {"Radio", "Nina Simone", "Miles Davis", ""}) dict.Intern(v);
  c.Add("state_records", "dictionary.bin", dict.EncodeState());
  std::string offsets;
  state::OffsetSet::Of({100, 101, 102, 105, 130}).EncodeTo(&offsets);
  c.Add("state_records", "offset-set.bin", offsets);

  c.Add("changelog_record", "signature.bin",
        ChangelogInput(3, state::StateFamily::kSignatures, state::VehicleKey(3, vehicle), sig.Encode()));
  c.Add("changelog_record", "waiting.bin",
        ChangelogInput(3, state::StateFamily::kWaiting, state::VehicleKey(3, vehicle), state::EncodeWaitingTuple(w)));
  c.Add("changelog_record", "waiting-with-events.bin",
        ChangelogInput(3, state::StateFamily::kWaiting, state::VehicleKey(3, vehicle),
                       state::EncodeWaitingTuple(w, waiting_events)));
  c.Add("changelog_record", "waiting-tombstone.bin",
        ChangelogInput(3, state::StateFamily::kWaiting, state::VehicleKey(3, vehicle), ""));
  c.Add("changelog_record", "progress.bin",
        ChangelogInput(3, state::StateFamily::kMeta, state::MetaKey(3, "progress"), p.Encode()));
  c.Add("changelog_record", "clock.bin",
        ChangelogInput(3, state::StateFamily::kMeta, state::MetaKey(3, "clock"), clock.EncodeState()));
  c.Add("changelog_record", "dictionary.bin",
        ChangelogInput(3, state::StateFamily::kMeta, state::MetaKey(3, "dictionary"), dict.EncodeState()));
}

std::vector<state::ReleaseLogEntry> ReleaseLogEntries() {
  state::ReleaseLogEntry prepared;
  prepared.seed.fill(0x5c);
  prepared.readback_partition = 2;
  prepared.readback_offset = 991;
  prepared.prepared_wall_ms = 1763805620000;
  state::ReleaseLogEntry with_offsets = prepared;
  with_offsets.epoch_offsets = state::OffsetSet::Of({4000, 4001, 4002, 4010, 4100});
  state::ReleaseLogEntry committed = prepared;
  committed.status = state::ReleaseStatus::kCommitted;
  committed.seed.fill(0);
  committed.committed_wall_ms = 1763805621000;
  committed.summary = R"({"release":176380561,"partition":3,"groups":62,"suppression":0.015})";
  state::ReleaseLogEntry empty_offsets = prepared;
  empty_offsets.epoch_offsets = state::OffsetSet();
  return {prepared, with_offsets, committed, empty_offsets};
}

void ReleaseLogSeeds(Corpus& c) {
  const std::vector<state::ReleaseLogEntry> entries = ReleaseLogEntries();
  const char* names[] = {"prepared-v1.bin", "prepared-v2.bin", "committed.bin", "prepared-v2-empty.bin"};
  for (size_t i = 0; i < entries.size(); ++i) {
    c.Add("release_log", names[i], entries[i].Encode());
    c.Add("changelog_record", std::string("release-") + names[i],
          ChangelogInput(3, state::StateFamily::kReleases, state::ReleaseKey(3, 176380561 + i), entries[i].Encode()));
  }
  c.Add("release_log", "truncated.bin", entries[2].Encode().substr(0, 40));
}

// Window counter records of the harness's counters, with a few vehicles.
std::vector<std::string> WindowRecords() {
  std::vector<dp::WindowCounter> counters = DpWindowCounters();
  std::vector<std::string> out;
  for (size_t k = 0; k < counters.size(); ++k) {
    for (int v = 0; v < 3; ++v) {
      std::vector<dp::DpEvent> events(4);
      for (size_t i = 0; i < events.size(); ++i) {
        events[i].vehicle = std::string(32, static_cast<char>('a' + v));
        events[i].trip = "trip" + std::to_string(i % 2);
        events[i].name = i % 2 ? "location" : "vehicle_speed";
        events[i].ts_ms = static_cast<int64_t>(i) * 7000;
        events[i].qi = {{"engine", v == 1 ? "Gas" : "EV"}};
      }
      counters[k].AddVehicle(events[0].vehicle, events);
    }
    out.push_back(counters[k].SerializeTotals());
    out.push_back(counters[k].Serialize());
    out.push_back(counters[k].SerializeVehicle(std::string(32, 'a')));
  }
  return out;
}

void DpSeeds(Corpus& c) {
  std::string ledger;
  for (uint64_t r = 0; r < 3; ++r)
    ledger += dp::EncodeLedgerEntry({176380560 + r, 1763805600000 + 10000 * int64_t(r), 100000});
  c.Add("dp_records", "ledger.bin", ledger);
  dp::SeededRandomSource rng(3);
  std::string trees;
  for (int levels : {1, 3, 20}) {
    std::optional<dp::TreeCounter> t = dp::TreeCounter::Create(levels, 4, *dp::Rational::Make(1, 10000));
    for (int i = 0; i < 5 && t->releases() < t->horizon(); ++i) t->Add(i * 3, rng);
    trees += (trees.empty() ? "" : "\n") + t->Serialize();
  }
  c.Add("dp_records", "trees.txt", trees);
  c.Add("dp_records", "tree1.txt", "tree1 2 1 1 10 2 5 7 3 -4 0 0");
  const std::vector<std::string> windows = WindowRecords();
  const char* names[] = {"wtotals", "window", "vehicle"};
  for (size_t i = 0; i < windows.size(); ++i) {
    c.Add("dp_records", std::string(names[i % 3]) + "-" + std::to_string(i / 3) + ".txt", windows[i]);
  }
  service::DpPartial partial;
  partial.window = 58793520;
  partial.source = 3;
  partial.partitions = 6;
  partial.cut = 2;
  partial.counts = {{1, 0, 4, 9}, {0, 2, 2}};
  c.Add("dp_records", "partial.txt", service::EncodePartial(partial));
  service::DpAggregateState agg;
  agg.next = 58793519;
  agg.offset = 77;
  agg.sources = {{58793519, {0, 1, 2}}, {58793520, {3}}};
  c.Add("dp_records", "aggregate-index.txt", agg.EncodeIndex());
  service::GlobalMark mark;
  mark.window = 58793520;
  mark.aggregator = 2;
  mark.charge = {176380561, 1763805620000, 250000000};
  mark.complete = true;
  c.Add("dp_records", "global-mark.txt", service::EncodeGlobalMark(mark));
  mark.charge.epsilon_nanos = 0;
  mark.complete = false;
  c.Add("dp_records", "global-mark-unpaid.txt", service::EncodeGlobalMark(mark));
  c.Add("dp_records", "epsilons.txt", "0.0001\n10\n9223372036.854775807\n.5\n1.\n0.000000001");

  c.Add("changelog_record", "dp-ledger.bin",
        ChangelogInput(3, state::StateFamily::kMeta, state::MetaKey(3, "dp_ledger"), ledger));
  c.Add("changelog_record", "dp-tree.bin",
        ChangelogInput(3, state::StateFamily::kMeta, state::MetaKey(3, "dp_tree/vehicles_by_engine"), trees));
  c.Add("changelog_record", "dp-window.bin",
        ChangelogInput(3, state::StateFamily::kMeta, state::MetaKey(3, "dp_window"),
                       "w2 58793520 1\n" + windows[0] + "\n" + windows[3]));
  c.Add("changelog_record", "dp-wv.bin",
        ChangelogInput(3, state::StateFamily::kMeta, state::MetaKey(3, "dp_wv/58793520/6161"),
                       windows[2] + "\n" + windows[5]));
  c.Add("changelog_record", "dp-agg.bin",
        ChangelogInput(3, state::StateFamily::kMeta, state::MetaKey(3, "dp_agg"), agg.EncodeIndex()));
  c.Add("changelog_record", "dp-agg-window.bin",
        ChangelogInput(3, state::StateFamily::kMeta, state::MetaKey(3, "dp_agg/58793520"),
                       service::EncodePartial(partial)));
}

// Values sealed with the sealed-record harness's ring at its place, so that
// they open: mode byte 0, then the value. Mode byte 1 seeds seal a
// plaintext and edit it (sealed_record_fuzzer.cc).
void SealSeeds(Corpus& c) {
  service::DpPartial partial;
  partial.window = 58793520;
  partial.source = 3;
  partial.partitions = 6;
  partial.counts = {{1, 0, 4, 9}};
  const std::string plain[] = {service::EncodePartial(partial), "", std::string(32, '\x5a') + "v1;next=1"};
  const char* names[] = {"partial", "empty", "binary"};
  for (size_t i = 0; i < 3; ++i) {
    const std::string sealed = FuzzSealer().Seal(FuzzSealPlace(), plain[i]);
    c.Add("sealed_record", std::string("open-") + names[i] + ".bin", std::string(1, '\0') + sealed);
    if (i == 0) {
      std::string unknown = sealed;
      unknown[6] = '9';  // key id k1 -> k9: not in the ring
      c.Add("sealed_record", "open-unknown-key.bin", std::string(1, '\0') + unknown);
      c.Add("sealed_record", "open-truncated.bin", std::string(1, '\0') + sealed.substr(0, 20));
    }
  }
  c.Add("sealed_record", "open-clear.bin", std::string(1, '\0') + plain[0]);
  c.Add("sealed_record", "seal-unchanged.bin", std::string("\x01\x00", 2) + plain[0]);
  // Two edits: flip a bit of the nonce; insert a byte after the key id.
  c.Add("sealed_record", "seal-edited.bin", std::string("\x01\x02\x00\x08\x00\x01\x02\x07\x00\x41", 10) + plain[0]);
  c.Add("sealed_record", "seal-truncated.bin", std::string("\x01\x01\x01\x1c\x00\x00", 6) + plain[2]);
}

void KeyringSeeds(Corpus& c) {
  const std::string hex1 = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
  const std::string hex2 = "C0FFEE00C0FFEE00C0FFEE00C0FFEE00C0FFEE00C0FFEE00C0FFEE00C0FFEE00";
  c.Add("keyring", "one.txt", "k1:" + hex1);
  c.Add("keyring", "rotated.txt", "2026-11:" + hex2 + ",2026-10:" + hex1);
  c.Add("keyring", "spaces.txt", "  key.a_1 : " + hex1 + " ,\n key-b:" + hex2 + "\n");
  c.Add("keyring", "duplicate-id.txt", "k1:" + hex1 + ",k1:" + hex2);
  c.Add("keyring", "short-key.txt", "k1:" + hex1.substr(0, 62));
  c.Add("keyring", "bad-id.txt", "k/1:" + hex1);
  c.Add("keyring", "no-colon.txt", hex1);
  c.Add("keyring", "trailing-comma.txt", "k1:" + hex1 + ",");
}

}  // namespace
}  // namespace vanon::fuzz

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: vanon-fuzz-seeds DIR   (DIR: tests/fuzz/corpus)\n";
    return 2;
  }
  using namespace vanon::fuzz;
  Corpus c(argv[1]);
  const std::vector<vanon::fleet::FleetMessage> fleet = FleetMessages();
  EventSeeds(c, fleet);
  VehicleSeeds(c);
  ConfigSeeds(c);
  BufferedEventSeeds(c, fleet);
  StateSeeds(c);
  ReleaseLogSeeds(c);
  DpSeeds(c);
  SealSeeds(c);
  KeyringSeeds(c);
  c.Report();
  return 0;
}
