#include "vanon/service/release_runner.h"

#include <simdjson.h>
#include <spdlog/spdlog.h>
#include <openssl/rand.h>

#include <chrono>
#include <stdexcept>
#include <unordered_map>

#include "vanon/ingest/buffered_event.h"
#include "vanon/kafka/committed_reader.h"
#include "vanon/kafka/transactional_producer.h"
#include "vanon/release/payload_transformer.h"
#include "vanon/release/release_writer.h"
#include "vanon/release/schema_from_config.h"
#include "vanon/release/seed_stream.h"
#include "vanon/release/sensitive_dictionary.h"
#include "vanon/release/tuple_builder.h"
#include "vanon/service/dp_publisher.h"
#include "vanon/service/fault_injection.h"
#include "vanon/service/ingest_pipeline.h"
#include "vanon/service/release_metrics.h"
#include "vanon/state/state_store.h"

namespace vanon {

namespace {

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch()).count();
}

// The release log keeps this many releases per partition (for operators and
// for restoring the last-release metrics); older entries are deleted.
constexpr int64_t kReleaseLogLength = 1000;
constexpr int kCommitAttempts = 3;

ReleaseParams ParamsFrom(const PrivacyConfig& p) {
  ReleaseParams r;
  r.model = p.model == PrivacyModel::kMInvariance ? Model::kMInvariance : Model::kKAnonymity;
  r.m = static_cast<uint32_t>(p.m);
  r.k = static_cast<uint32_t>(p.k);
  r.l = static_cast<uint32_t>(p.l);
  r.t = p.t;
  r.max_delay = static_cast<uint32_t>(p.max_delay_epochs);
  return r;
}

// Marks a transaction attempt (header only, never part of a record's value):
// lets an operator or a test tell two attempts at the same release apart.
std::string AttemptId() {
  unsigned char b[8];
  if (RAND_bytes(b, sizeof b) != 1) throw std::runtime_error("OpenSSL RAND_bytes failed");
  static const char* kHex = "0123456789abcdef";
  std::string s;
  for (unsigned char c : b) {
    s.push_back(kHex[c >> 4]);
    s.push_back(kHex[c & 15]);
  }
  return s;
}

// The buffered events a release consumes: its epoch's events, and older
// ones (which only the waiting tuples still own), each with its state key.
struct EpochEvents {
  std::vector<BufferedEvent> current;
  std::vector<std::pair<int64_t, int64_t>> current_keys;  // (ts, offset)
  std::vector<BufferedEvent> old;
  std::vector<std::pair<int64_t, int64_t>> old_keys;
};

EpochEvents LoadEvents(const StateStore& store, int32_t partition, int64_t start_ms, int64_t end_ms) {
  EpochEvents ev;
  BufferedEvent e;
  store.ScanEvents(partition, [&](int64_t ts, int64_t offset, std::string_view value) {
    if (ts >= end_ms) return false;
    if (!DecodeBufferedEvent(value, &e)) {
      throw std::runtime_error("state: unreadable buffered event in partition " + std::to_string(partition));
    }
    bool current = ts >= start_ms;
    (current ? ev.current : ev.old).push_back(e);
    (current ? ev.current_keys : ev.old_keys).emplace_back(ts, offset);
    return true;
  });
  return ev;
}

std::string VehicleKey(const HmacToken& t) { return std::string(reinterpret_cast<const char*>(t.data()), t.size()); }

}  // namespace

struct ReleaseRunner::Impl {
  const Config& config;
  int sensitive_extra;
  StateStore* store;
  TransactionalProducer* producer;
  ReleaseMetricsExporter* metrics;
  OutputTopology topology;
  DpPublisher* dp;
  Schema schema;
  PayloadTransformer payload;
  std::map<int32_t, uint64_t> waiting;

  Impl(const Config& c, int extra, StateStore* s, TransactionalProducer* p, ReleaseMetricsExporter* m,
       OutputTopology t, DpPublisher* d)
      : config(c), sensitive_extra(extra), store(s), producer(p), metrics(m), topology(t), dp(d),
        schema(SchemaFromConfig(c)), payload(c.payload) {}

  int32_t ReleasesPartition(int32_t p) const { return p % topology.releases_partitions; }
  int32_t AnonymizedPartition(int32_t p) const { return p % topology.anonymized_partitions; }
  int32_t CountsPartition(int32_t p) const { return p % topology.counts_partitions; }

  ReleaseLogEntry Prepare(int32_t partition, int64_t epoch, const EpochClock& clock) {
    ReleaseLogEntry entry;
    entry.status = ReleaseStatus::kPrepared;
    entry.seed = NewReleaseSeed();
    entry.readback_partition = ReleasesPartition(partition);
    entry.readback_offset = producer->HighWatermark(config.kafka.topics.releases, entry.readback_partition);
    entry.prepared_wall_ms = WallMs();
    ReleaseWrite w(*store);
    w.PutRelease(partition, epoch, entry);
    // The watermark that closed the epoch is stored with the seed: after a
    // restart, events of this epoch stay late, so the recomputation sees
    // exactly the events the first attempt saw.
    w.PutMeta(partition, kClockMeta, clock.EncodeState());
    store->Commit(w);
    FaultPoint("release.after_prepare");
    return entry;
  }

  // True when a read_committed reader finds this release's summary after the
  // offset recorded at prepare time: the earlier attempt committed.
  bool SummaryCommitted(int32_t partition, int64_t epoch, const ReleaseLogEntry& entry) {
    bool found = false;
    simdjson::ondemand::parser parser;
    ReadCommitted(config.kafka.bootstrap, config.kafka.properties, config.kafka.consumer_properties,
                  config.kafka.topics.releases, entry.readback_partition, entry.readback_offset,
                  [&](const CommittedRecord& r) {
                    simdjson::padded_string json(r.value);
                    simdjson::ondemand::document doc;
                    if (parser.iterate(json).get(doc)) return true;
                    std::string_view type;
                    int64_t release = 0, part = 0;
                    if (doc["type"].get_string().get(type) || type != "summary") return true;
                    if (doc["release"].get_int64().get(release) || release != epoch) return true;
                    if (doc["partition"].get_int64().get(part) || part != partition) return true;
                    found = true;
                    return false;
                  });
    return found;
  }

  void Publish(int32_t partition, int64_t epoch, const ReleaseRecords& rec, const std::vector<std::string>& dp_records) {
    const std::string key = std::to_string(epoch) + "/" + std::to_string(partition);
    const int32_t anon = AnonymizedPartition(partition);
    const int32_t rel = ReleasesPartition(partition);
    const int32_t counts = CountsPartition(partition);
    for (int attempt = 1;; ++attempt) {
      try {
        KafkaHeaders headers = {{"vanon.attempt", AttemptId()}};
        producer->BeginTransaction();
        const size_t half = rec.events.size() / 2;
        for (size_t i = 0; i < half; ++i) producer->Produce(config.kafka.topics.anonymized, anon, {}, rec.events[i], headers);
        if (FaultInjectionEnabled()) {
          producer->Flush(30000);  // so the broker really holds half a transaction
          FaultPoint("release.mid_produce");
        }
        for (size_t i = half; i < rec.events.size(); ++i) {
          producer->Produce(config.kafka.topics.anonymized, anon, {}, rec.events[i], headers);
        }
        for (const std::string& d : dp_records) producer->Produce(config.kafka.topics.counts, counts, key, d, headers);
        for (const std::string& g : rec.groups) producer->Produce(config.kafka.topics.releases, rel, key, g, headers);
        producer->Produce(config.kafka.topics.releases, rel, key, rec.summary, headers);
        if (FaultInjectionEnabled()) {
          producer->Flush(30000);
          FaultPoint("release.before_commit");
        }
        producer->CommitTransaction();
        return;
      } catch (const AbortableKafkaError& e) {
        spdlog::warn("release {} partition {}: transaction attempt {} failed, aborting: {}", epoch, partition,
                     attempt, e.what());
        producer->AbortTransaction();
        if (attempt >= kCommitAttempts) throw;
      }
    }
  }

  ReleaseOutcome Run(int32_t partition, int64_t epoch, EpochClock* clock, PartitionProgress* progress) {
    const auto t0 = std::chrono::steady_clock::now();
    ReleaseOutcome outcome;
    outcome.partition = partition;
    outcome.release = epoch;

    std::optional<ReleaseLogEntry> entry = store->GetRelease(partition, epoch);
    bool committed_before = false;
    if (entry && entry->status == ReleaseStatus::kCommitted) {
      // Apply wrote the log entry and closed the clock in one batch, so this
      // means the clock in memory is behind state: never expected.
      throw std::runtime_error("release " + std::to_string(epoch) + " of partition " + std::to_string(partition) +
                               " is committed but its epoch is still open");
    }
    if (entry) {
      committed_before = SummaryCommitted(partition, epoch, *entry);
      outcome.recovered = committed_before;
      outcome.republished = !committed_before;
      spdlog::info("release {} partition {}: resuming a prepared release; {}", epoch, partition,
                   committed_before ? "it was committed, applying its state" : "it was not committed, republishing");
    } else {
      entry = Prepare(partition, epoch, *clock);
    }

    // Compute. Everything below is a function of the state written before
    // prepare and of the seed, so every attempt yields the same records.
    const int64_t start = clock->EpochStart(epoch), end = clock->EpochEnd(epoch);
    EpochEvents ev = LoadEvents(*store, partition, start, end);
    SensitiveDictionary dict(schema.sensitive_hierarchy.get());
    if (auto d = store->GetMeta(partition, kDictionaryMeta)) {
      if (!dict.DecodeState(*d)) throw std::runtime_error("state: unreadable sensitive dictionary");
    }
    TupleBuilder builder(config, schema, sensitive_extra, &dict);
    BuiltTuples built = builder.Build(ev.current);

    ReleaseInput in;
    in.release_id = static_cast<uint64_t>(epoch);
    in.waiting = store->LoadWaiting(partition);
    TupleEvents tuple_events = EventsOfBuiltTuples(built, ev.current, in.waiting.size());
    in.tuples = std::move(built.tuples);

    // Older events belong to waiting tuples, by vehicle.
    std::unordered_map<std::string, std::vector<size_t>> old_by_vehicle;
    for (size_t i = 0; i < ev.old.size(); ++i) old_by_vehicle[VehicleKey(ev.old[i].vehicle_key)].push_back(i);
    for (size_t w = 0; w < in.waiting.size(); ++w) {
      auto it = old_by_vehicle.find(in.waiting[w].tuple.vehicle);
      if (it == old_by_vehicle.end()) continue;
      for (size_t i : it->second) tuple_events[in.tuples.size() + w].push_back(&ev.old[i]);
    }

    std::vector<std::string> lookup;
    lookup.reserve(in.tuples.size() + in.waiting.size());
    for (const Tuple& t : in.tuples) lookup.push_back(t.vehicle);
    for (const WaitingTuple& w : in.waiting) lookup.push_back(w.tuple.vehicle);
    std::vector<std::optional<StoredSignature>> stored = store->GetSignatures(partition, lookup);
    std::unordered_map<std::string, const StoredSignature*> stored_by_vehicle;
    for (size_t i = 0; i < lookup.size(); ++i) {
      if (!stored[i]) continue;
      in.known_signatures.emplace(lookup[i], stored[i]->values);
      stored_by_vehicle.emplace(lookup[i], &*stored[i]);
    }

    SeedStream random(entry->seed);
    in.params = ParamsFrom(config.privacy);
    in.params.seed = random.NextU64();
    ReleaseOutput out = ComputeRelease(schema, in);
    ReleaseRecords rec = WriteRelease({&schema, config.sensitive ? &dict : nullptr, &payload},
                                      {partition, topology.input_partitions, start, end}, in, out,
                                      tuple_events, &random);

    // DP counts on the raw events of the epoch, suppressed vehicles included.
    // The ledger charge is durable before any noisy value leaves; a
    // recomputation finds it spent and draws the same noise from `random`.
    DpPublisher::Result dp_result;
    if (dp) dp_result = dp->Compute(partition, epoch, start, end, ev.current, random);

    if (!committed_before) Publish(partition, epoch, rec, dp_result.records);
    const int64_t commit_wall = WallMs();
    FaultPoint("release.after_commit");

    // Apply.
    ReleaseWrite w(*store);
    const size_t n_current = in.tuples.size();
    auto delete_events = [&](TupleRef ref) -> uint64_t {
      uint64_t n = 0;
      if (ref < n_current) {
        for (const BufferedEvent* e : tuple_events[ref]) {
          size_t i = static_cast<size_t>(e - ev.current.data());
          w.DeleteEvent(partition, ev.current_keys[i].first, ev.current_keys[i].second);
          ++n;
        }
      } else {
        for (const BufferedEvent* e : tuple_events[ref]) {
          size_t i = static_cast<size_t>(e - ev.old.data());
          w.DeleteEvent(partition, ev.old_keys[i].first, ev.old_keys[i].second);
          ++n;
        }
      }
      return n;
    };
    // Purge first: in a write batch the later operation wins, and a vehicle
    // published now must keep the signature the puts below refresh.
    PurgeSignatures(partition, epoch, &w);
    uint64_t published_events = 0, suppressed_events = 0;
    for (const Group& g : out.groups) {
      for (TupleRef ref : g.members) {
        published_events += delete_events(ref);
        const std::string& vehicle = ResolveTuple(in, ref).vehicle;
        auto known = stored_by_vehicle.find(vehicle);
        if (known != stored_by_vehicle.end()) {
          StoredSignature s = *known->second;
          s.last_release = epoch;
          w.PutSignature(partition, vehicle, s);
        }
      }
    }
    for (const Suppressed& s : out.suppressed) suppressed_events += delete_events(s.ref);
    for (const auto& [vehicle, sig] : out.new_signatures) {
      w.PutSignature(partition, vehicle, StoredSignature{sig, epoch, epoch});
    }
    // Events older than the epoch that no waiting tuple owns cannot occur
    // (apply deletes them with their tuple); if state says otherwise they
    // are counted as suppressed rather than kept forever.
    std::unordered_map<std::string, bool> owned;
    for (const WaitingTuple& wt : in.waiting) owned[wt.tuple.vehicle] = true;
    uint64_t orphans = 0;
    for (const auto& [vehicle, idx] : old_by_vehicle) {
      if (owned.count(vehicle)) continue;
      for (size_t i : idx) w.DeleteEvent(partition, ev.old_keys[i].first, ev.old_keys[i].second);
      orphans += idx.size();
    }
    if (orphans > 0) {
      spdlog::error("release {} partition {}: {} buffered events had no waiting tuple; counted as suppressed",
                    epoch, partition, orphans);
      suppressed_events += orphans;
    }
    for (const WaitingTuple& wt : in.waiting) w.DeleteWaiting(partition, wt.tuple.vehicle);
    for (const StillWaiting& sw : out.waiting) w.PutWaiting(partition, WaitingTuple{ResolveTuple(in, sw.ref), sw.first_release});

    clock->Close(epoch);
    progress->released += published_events;
    progress->suppressed += suppressed_events;
    progress->releases++;
    entry->status = ReleaseStatus::kCommitted;
    entry->committed_wall_ms = commit_wall;
    entry->summary = rec.summary;
    if (dp) dp->Apply(partition, dp_result, &w);
    w.PutMeta(partition, kDictionaryMeta, dict.EncodeState());
    w.PutMeta(partition, kClockMeta, clock->EncodeState());
    w.SetProgress(partition, *progress);
    w.PutRelease(partition, epoch, *entry);
    w.DeleteRelease(partition, epoch - kReleaseLogLength);
    store->Commit(w);
    FaultPoint("release.after_apply");

    if (dp) dp->Committed(dp_result);
    waiting[partition] = out.waiting.size();
    outcome.dp_records = dp_result.records.size();
    outcome.dp_budget_exhausted = dp_result.budget_exhausted;
    outcome.metrics = out.metrics;
    outcome.events_published = published_events;
    outcome.events_suppressed = suppressed_events;
    outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (metrics) {
      metrics->Record({out.metrics, published_events, outcome.seconds, commit_wall});
      for (const Group& g : out.groups) {
        for (TupleRef ref : g.members) {
          for (const BufferedEvent* e : tuple_events[ref]) {
            metrics->ObserveLatency(static_cast<double>(commit_wall - e->ts_ms) / 1000.0, 1);
          }
        }
      }
      metrics->SetWaiting(Waiting());
    }
    const ReleaseMetrics& m = out.metrics;
    spdlog::info(
        "release {} partition {}: {} tuples, {} published in {} groups, {} counterfeits, suppressed "
        "{}/{}/{} (conflict/delay/ineligible), {} waiting, {} events out, {:.3f} s{}",
        epoch, partition, m.tuples, m.published, m.groups, m.counterfeits, m.suppressed_by_reason[0],
        m.suppressed_by_reason[1], m.suppressed_by_reason[2], m.waiting, published_events, outcome.seconds,
        outcome.recovered ? " (recovered after a crash)" : outcome.republished ? " (republished after a crash)" : "");
    return outcome;
  }

  // Signatures of vehicles not published for longer than the retention
  // horizon are forgotten: the guarantee covers releases inside it.
  void PurgeSignatures(int32_t partition, int64_t epoch, ReleaseWrite* w) {
    const int64_t horizon = static_cast<int64_t>(config.privacy.signature_retention_days) * 86400 /
                            std::max<int64_t>(config.privacy.epoch.length_seconds, 1);
    // A scan per release is cheap next to the release itself, but there is no
    // need to do it more often than every 64 releases.
    if (epoch % 64 != 0) return;
    store->ScanSignatures(partition, [&](std::string_view vehicle, const StoredSignature& s) {
      if (s.last_release < epoch - horizon) w->DeleteSignature(partition, vehicle);
      return true;
    });
  }

  uint64_t Waiting() const {
    uint64_t n = 0;
    for (const auto& [p, k] : waiting) n += k;
    return n;
  }
};

ReleaseRunner::ReleaseRunner(const Config& config, int sensitive_extra, StateStore* store,
                             TransactionalProducer* producer, ReleaseMetricsExporter* metrics,
                             OutputTopology topology, DpPublisher* dp)
    : impl_(std::make_unique<Impl>(config, sensitive_extra, store, producer, metrics, topology, dp)) {}

ReleaseRunner::~ReleaseRunner() = default;

ReleaseOutcome ReleaseRunner::Run(int32_t partition, int64_t epoch, EpochClock* clock, PartitionProgress* progress) {
  return impl_->Run(partition, epoch, clock, progress);
}

uint64_t ReleaseRunner::waiting() const { return impl_->Waiting(); }

}  // namespace vanon
