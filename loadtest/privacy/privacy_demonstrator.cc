// Seed 000's Privacy Demonstrator, run on what vanon publishes.
//
// A synthetic fleet goes through the release library in-process (the same
// path the service takes: TupleBuilder -> ComputeRelease -> WriteRelease).
// Then an adversary who reads every output record and knows each vehicle's
// QIs, partition and the releases it is in lists each vehicle's candidate
// sensitive values (tests/e2e/disclosure_attack.h). Three views of the same
// stream:
//   raw input     what the adversary reads on the raw topic: the value itself;
//   records v1    group records that paired tuple tokens with values (record
//                 version 1), rebuilt from this run's groups and ground truth;
//   records v2    the records as published now.
//
// Usage: vanon-privacy-demonstrator [--vehicles N] [--epochs E] [--m M]
//                                   [--partitions P] [--rate EVENTS_PER_S] [--seed S]
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "disclosure_attack.h"
#include "fleet_truth.h"
#include "ground_truth.h"
#include "in_process_release.h"
#include "output_records.h"
#include "record_index.h"
#include "truth_values.h"
#include "vanon/fleet/fleet_generator.h"
#include "vanon/release/schema_from_config.h"
#include "vanon/vehicle/vin_decoder.h"

namespace vanon::e2e {
namespace {

struct Options {
  int vehicles = 2000;
  int epochs = 12;
  int m = 5;
  int partitions = 4;
  double rate = 400;  // events per second of event time
  uint64_t seed = 13;
};

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const char* v = argv[i + 1];
    if (k == "--vehicles")
      o.vehicles = std::atoi(v);
    else if (k == "--epochs")
      o.epochs = std::atoi(v);
    else if (k == "--m")
      o.m = std::atoi(v);
    else if (k == "--partitions")
      o.partitions = std::atoi(v);
    else if (k == "--rate")
      o.rate = std::atof(v);
    else if (k == "--seed")
      o.seed = std::strtoull(v, nullptr, 10);
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      std::exit(2);
    }
  }
  return o;
}

void Row(const char* view, const AttackReport& r) {
  std::printf("| %s | %llu | %llu (%.2f%%) | %llu (%.2f%%) | %zu | %llu of %llu | %llu |\n", view,
              static_cast<unsigned long long>(r.targets), static_cast<unsigned long long>(r.disclosed),
              100.0 * static_cast<double>(r.disclosed) / static_cast<double>(r.targets),
              static_cast<unsigned long long>(r.below_m),
              100.0 * static_cast<double>(r.below_m) / static_cast<double>(r.targets), r.min_candidates,
              static_cast<unsigned long long>(r.vehicles_disclosed), static_cast<unsigned long long>(r.vehicles),
              static_cast<unsigned long long>(r.vehicles_below_m));
}

int Main(int argc, char** argv) {
  const Options opt = Parse(argc, argv);
  const config::Config config =
      config::LoadConfig(std::string(VANON_SOURCE_DIR) + "/config/demo.yaml",
                         {"state.dir=/tmp/vanon-demonstrator-unused", "privacy.m=" + std::to_string(opt.m),
                          "payload.fields.3={path: seq, transform: keep}"});
  const engine::Schema schema = release::SchemaFromConfig(config.quasi_identifiers, config.sensitive);
  const int64_t len = config.privacy.epoch.length_seconds * 1000;
  fleet::FleetOptions f;
  f.vehicles = static_cast<size_t>(opt.vehicles);
  f.seed = opt.seed;
  f.events_per_second = opt.rate;
  f.churn = 0.2;
  f.churn_epoch_ms = len;
  f.start_ms = 1763805600000;  // an epoch boundary
  f.max_message_bytes = static_cast<size_t>(config.input.max_message_bytes);
  fleet::VinDecoder table = fleet::VinDecoder::Load(config.vehicle.vin_table);
  fleet::FleetGenerator gen(f, table);
  InProcessRelease service(config, "demonstrator-hmac-key-0123456789abcdef", opt.partitions);
  std::vector<TruthMessage> truth;
  const auto total =
      static_cast<uint64_t>(static_cast<double>(opt.epochs) * static_cast<double>(len) / 1000 * opt.rate);
  int64_t open = FloorDiv(f.start_ms, len);
  uint64_t seq = 0;
  for (uint64_t i = 0; i < total; ++i) {
    const fleet::FleetMessage& msg = gen.Next();
    const int64_t epoch = FloorDiv(msg.ts_ms, len);
    if (epoch > open) {
      service.ReleaseThrough(epoch - 1);
      open = epoch;
    }
    std::string value = msg.value;
    const int32_t p = PartitionOfVin(msg.key, opt.partitions);
    if (!msg.expected_reject && !InsertSeq(&value, ++seq)) continue;
    if (service.Ingest(p, msg.key, value, msg.ts_ms + 1000) == Ingested::kBuffered) {
      truth.push_back(TruthOf(p, msg, value, config, gen.Vehicles()[msg.vehicle_index]));
    }
  }
  service.ReleaseThrough(open);

  std::string error;
  std::vector<EventRecord> events;
  for (const std::string& e : service.event_records()) {
    if (auto r = ParseEventRecord(e, &error)) events.push_back(std::move(*r));
  }
  std::vector<GroupRecord> groups;
  for (const std::string& g : service.release_records()) {
    auto r = ParseReleaseRecord(g, &error);
    if (r && !r->is_summary) groups.push_back(std::move(r->group));
  }

  // The adversary's knowledge, and each published tuple's true value.
  const TruthValues values(config, schema);
  std::map<uint64_t, const TruthMessage*> by_seq;
  for (const TruthMessage& t : truth) by_seq[*SeqOfPayload(t.payload_json)] = &t;
  std::map<std::pair<int64_t, std::string>, std::vector<const std::string*>> payloads;  // (release, token)
  std::map<std::pair<int64_t, std::string>, std::vector<std::pair<int64_t, uint64_t>>> order;
  std::set<std::pair<std::string, int64_t>> seen;
  std::vector<Target> targets;
  for (const EventRecord& e : events) {
    const TruthMessage& t = *by_seq.at(*e.seq);
    payloads[{e.release, e.tuple}].push_back(&t.payload_json);
    if (!seen.emplace(t.vin, e.release).second) continue;
    auto qi = values.EncodeQi(t.qi);
    if (qi) targets.push_back({t.vin, t.partition, e.release, *qi});
  }

  // Version-1 view: every real token paired with its tuple's value, the
  // counterfeits' tokens with the values left over.
  std::map<std::pair<int64_t, std::string>, std::vector<std::string>> tokens_of;  // (release, group)
  for (const EventRecord& e : events) {
    auto& list = tokens_of[{e.release, e.group}];
    if (list.empty() || list.back() != e.tuple) list.push_back(e.tuple);
  }
  std::vector<GroupRecord> v1 = groups;
  for (GroupRecord& g : v1) {
    std::multiset<std::string> left(g.sensitive.begin(), g.sensitive.end());
    std::set<std::string> tokens(tokens_of[{g.release, g.group}].begin(), tokens_of[{g.release, g.group}].end());
    for (const std::string& token : tokens) {
      const auto value = values.Sensitive(payloads[{g.release, token}]).value_or("");
      g.tuples.push_back({token, value});
      if (auto it = left.find(value); it != left.end()) left.erase(it);
    }
    int n = 0;
    for (const std::string& v : left) g.tuples.push_back({"t-counterfeit-" + std::to_string(n++), v});
    g.sensitive.clear();
  }

  const size_t m = static_cast<size_t>(opt.m);
  const AttackReport now = RunDisclosureAttack(schema, events, groups, targets, m);
  const AttackReport before = RunDisclosureAttack(schema, events, v1, targets, m);
  AttackReport raw;
  raw.targets = targets.size();
  raw.disclosed = targets.size();
  raw.below_m = targets.size();
  raw.min_candidates = targets.empty() ? 0 : 1;
  raw.vehicles = now.vehicles;
  raw.vehicles_below_m = now.vehicles;
  raw.vehicles_disclosed = now.vehicles;

  std::printf("fleet: %d vehicles, %d epochs of %lld s, %d partitions, m = %d, %zu valid events, %zu published\n",
              opt.vehicles, opt.epochs, static_cast<long long>(len / 1000), opt.partitions, opt.m, truth.size(),
              events.size());
  std::printf(
      "| what the adversary reads | published vehicle-releases | value disclosed (1 candidate) | "
      "fewer than m candidates | min candidates | vehicles disclosed at least once | "
      "vehicles below m after intersecting releases |\n|---|---|---|---|---|---|---|\n");
  Row("raw input stream (baseline)", raw);
  Row("release records v1 (tokens paired with values)", before);
  Row("release records v2 (published now)", now);
  return now.below_m == 0 && now.vehicles_below_m == 0 ? 0 : 1;
}

}  // namespace
}  // namespace vanon::e2e

int main(int argc, char** argv) { return vanon::e2e::Main(argc, argv); }
