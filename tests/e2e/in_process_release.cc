#include "in_process_release.h"

#include <map>
#include <optional>

#include "record_index.h"
#include "truth_values.h"
#include "vanon/engine/release.h"
#include "vanon/ingest/buffered_event.h"
#include "vanon/ingest/event_parser.h"
#include "vanon/ingest/keyed_hasher.h"
#include "vanon/release/payload_transformer.h"
#include "vanon/release/release_writer.h"
#include "vanon/release/schema_from_config.h"
#include "vanon/release/seed_stream.h"
#include "vanon/release/sensitive_dictionary.h"
#include "vanon/release/tuple_builder.h"
#include "vanon/vehicle/vin_decoder.h"

namespace vanon::e2e {

namespace {

struct PartitionState {
  // Epoch -> its events. A released epoch's vector is never touched again,
  // so waiting tuples can point into it.
  std::map<int64_t, std::vector<ingest::BufferedEvent>> buffers;
  std::optional<int64_t> next_release;
  release::SensitiveDictionary dictionary;
  std::map<std::string, engine::Signature, std::less<>> signatures;
  std::vector<engine::WaitingTuple> waiting;
  std::vector<std::vector<const ingest::BufferedEvent*>> waiting_events;
};

ingest::FieldMapping MappingOf(const config::Config& c) {
  ingest::FieldMapping m;
  m.vin = c.input.fields.vin;
  m.trip = c.input.fields.trip;
  m.timestamp = c.input.fields.timestamp;
  m.event = c.input.fields.event;
  m.payload = c.input.fields.payload;
  m.extras = {c.sensitive->field};  // extras[0]: the sensitive value
  return m;
}

ingest::ValidationLimits LimitsOf(const config::Config& c) {
  ingest::ValidationLimits l;
  l.max_message_bytes = static_cast<size_t>(c.input.max_message_bytes);
  l.max_depth = static_cast<size_t>(c.input.max_depth);
  l.min_timestamp_ms = c.input.timestamp.min_ms;
  l.max_future_ms = c.input.timestamp.max_future_seconds * 1000;
  return l;
}

}  // namespace

struct InProcessRelease::Rep {
  Rep(const config::Config& c, std::string_view key, int32_t n)
      : config(c),
        partitions(n),
        schema(release::SchemaFromConfig(c.quasi_identifiers, c.sensitive)),
        parser(MappingOf(c), LimitsOf(c)),
        hasher(key),
        table(fleet::VinDecoder::Load(c.vehicle.vin_table)),
        payload(c.payload),
        state(static_cast<size_t>(n)) {
    for (auto& s : state) s.dictionary = release::SensitiveDictionary(schema.sensitive_hierarchy.get());
  }

  void Release(int32_t p, int64_t e);

  const config::Config& config;
  int32_t partitions;
  engine::Schema schema;
  ingest::EventParser parser;
  ingest::KeyedHasher hasher;
  fleet::VinDecoder table;
  release::PayloadTransformer payload;
  std::vector<PartitionState> state;
  std::vector<std::string> events;
  std::vector<std::string> releases;
};

void InProcessRelease::Rep::Release(int32_t p, int64_t e) {
  PartitionState& s = state[static_cast<size_t>(p)];
  const std::vector<ingest::BufferedEvent>& buffered = s.buffers[e];
  release::TupleBuilder builder(config.quasi_identifiers, config.sensitive, schema, 0, &s.dictionary);
  release::BuiltTuples built = builder.Build(buffered);
  engine::ReleaseInput in;
  in.release_id = static_cast<uint64_t>(e);
  in.tuples = built.tuples;
  in.known_signatures = s.signatures;
  in.waiting = s.waiting;
  in.params = release::ReleaseParamsFromConfig(config.privacy);
  in.params.seed = static_cast<uint64_t>(e);
  engine::ReleaseOutput out = ComputeRelease(schema, in);

  release::TupleEvents tuple_events = EventsOfBuiltTuples(built, buffered, in.waiting.size());
  for (size_t i = 0; i < s.waiting_events.size(); ++i) tuple_events[in.tuples.size() + i] = s.waiting_events[i];
  release::ReleaseSeed seed{};
  seed[0] = static_cast<uint8_t>(p);
  for (int b = 0; b < 8; ++b) seed[1 + b] = static_cast<uint8_t>(static_cast<uint64_t>(e) >> (8 * b));
  release::SeedStream random(seed);
  const int64_t len = config.privacy.epoch.length_seconds * 1000;
  release::ReleaseRecords rec = WriteRelease({&schema, &s.dictionary, &payload},
                                             {p, partitions, e * len, (e + 1) * len}, in, out, tuple_events, &random);
  events.insert(events.end(), rec.events.begin(), rec.events.end());
  releases.insert(releases.end(), rec.groups.begin(), rec.groups.end());
  releases.push_back(rec.summary);

  for (const auto& [vehicle, sig] : out.new_signatures) s.signatures[vehicle] = sig;
  std::vector<engine::WaitingTuple> waiting;
  std::vector<std::vector<const ingest::BufferedEvent*>> waiting_events;
  for (const engine::StillWaiting& w : out.waiting) {
    waiting.push_back({ResolveTuple(in, w.ref), w.first_release});
    waiting_events.push_back(tuple_events[w.ref]);
  }
  s.waiting = std::move(waiting);
  s.waiting_events = std::move(waiting_events);
  s.next_release = e + 1;
}

InProcessRelease::InProcessRelease(const config::Config& config, std::string_view hmac_key, int32_t partitions)
    : rep_(std::make_unique<Rep>(config, hmac_key, partitions)) {}

InProcessRelease::~InProcessRelease() = default;

Ingested InProcessRelease::Ingest(int32_t partition, std::string_view key, std::string_view value, int64_t now_ms) {
  ingest::ParsedEvent parsed;
  ingest::Rejection rejection;
  if (!rep_->parser.Parse(key, value, now_ms, &parsed, &rejection)) return Ingested::kRejected;
  PartitionState& s = rep_->state.at(static_cast<size_t>(partition));
  const int64_t epoch = FloorDiv(parsed.ts_ms, rep_->config.privacy.epoch.length_seconds * 1000);
  if (s.next_release && epoch < *s.next_release) return Ingested::kLate;
  ingest::BufferedEvent b;
  b.vehicle_key = rep_->hasher.Hash(parsed.vin);
  b.trip_key = rep_->hasher.HashTrip(parsed.trip_id);
  b.ts_ms = parsed.ts_ms;
  b.event = parsed.event;
  const fleet::DecodedVehicle decoded = rep_->table.Decode(parsed.vin);
  std::vector<std::string> qi_values;
  for (const config::QuasiIdentifier& qi : rep_->config.quasi_identifiers) {
    std::string v = fleet::kUnknownAttribute;
    for (const auto& [name, value] : decoded.attributes) {
      if (name == qi.name) v = value;
    }
    qi_values.push_back(std::move(v));
  }
  b.qi_values = std::move(qi_values);
  b.extras = parsed.extras;
  b.payload_json = rep_->payload.Transform(parsed.payload_json);  // as the service's ingestion does
  s.buffers[epoch].push_back(std::move(b));
  return Ingested::kBuffered;
}

void InProcessRelease::ReleaseThrough(int64_t epoch) {
  for (int32_t p = 0; p < rep_->partitions; ++p) {
    PartitionState& s = rep_->state[static_cast<size_t>(p)];
    if (!s.next_release) {
      if (s.buffers.empty()) continue;
      s.next_release = s.buffers.begin()->first;
    }
    while (*s.next_release <= epoch) rep_->Release(p, *s.next_release);
  }
}

const std::vector<std::string>& InProcessRelease::event_records() const { return rep_->events; }
const std::vector<std::string>& InProcessRelease::release_records() const { return rep_->releases; }

}  // namespace vanon::e2e
