#include "release_share.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "vanon/engine/checker.h"
#include "vanon/ingest/buffered_event.h"
#include "vanon/release/epoch_clock.h"
#include "vanon/release/schema_from_config.h"
#include "vanon/release/seed_stream.h"
#include "vanon/release/sensitive_dictionary.h"
#include "vanon/release/tuple_builder.h"
#include "vanon/service/fault_injection.h"

namespace vanon {

namespace {

std::string VehicleKey(const HmacToken& t) { return std::string(reinterpret_cast<const char*>(t.data()), t.size()); }

// Signatures of vehicles not published for longer than the retention
// horizon are forgotten: the guarantee covers releases inside it. A scan
// per release is cheap next to the release itself, but every 64 releases
// is often enough.
void PurgeSignatures(const ShareContext& ctx, int32_t partition, int64_t epoch, ReleaseWrite* w) {
  if (epoch % 64 != 0) return;
  const int64_t horizon = static_cast<int64_t>(ctx.config->privacy.signature_retention_days) * 86400 /
                          std::max<int64_t>(ctx.config->privacy.epoch.length_seconds, 1);
  ctx.store->ScanSignatures(partition, [&](std::string_view vehicle, const StoredSignature& s) {
    if (s.last_release < epoch - horizon) w->DeleteSignature(partition, vehicle);
    return true;
  });
}

}  // namespace

ComputedShare ComputeShare(const ShareContext& ctx, int32_t partition, int64_t epoch,
                           const ReleaseSeed& seed, bool committed_before, TakenEvents taken) {
  const Config& config = *ctx.config;
  const Schema& schema = *ctx.schema;
  StateStore& store = *ctx.store;
  ComputedShare share;
  share.partition = partition;
  share.epoch = epoch;
  share.committed_before = committed_before;

  const EpochClock clock(config.privacy.epoch);
  const int64_t start = clock.EpochStart(epoch), end = clock.EpochEnd(epoch);
  // Phase times for the debug log: where a slow release spends its time.
  auto lap = [last = std::chrono::steady_clock::now()]() mutable {
    const auto now = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - last).count();
    last = now;
    return ms;
  };
  timespec cpu0{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu0);
  EpochEvents ev = ArrangeEpochEvents(std::move(taken), start);
  const double arrange_ms = lap();
  SensitiveDictionary dict(schema.sensitive_hierarchy.get());
  if (auto d = store.GetMeta(partition, kDictionaryMeta)) {
    if (!dict.DecodeState(*d)) throw std::runtime_error("state: unreadable sensitive dictionary");
  }
  TupleBuilder builder(config, schema, ctx.sensitive_extra, &dict);
  BuiltTuples built = builder.Build(ev.current);
  share.qi_at_root = built.qi_at_root;

  ReleaseInput in;
  in.release_id = static_cast<uint64_t>(epoch);
  in.waiting = store.LoadWaiting(partition);
  TupleEvents tuple_events = EventsOfBuiltTuples(built, ev.current, in.waiting.size());
  in.tuples = std::move(built.tuples);
  const double build_ms = lap();

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
  std::vector<std::optional<StoredSignature>> stored = store.GetSignatures(partition, lookup);
  std::unordered_map<std::string, const StoredSignature*> stored_by_vehicle;
  for (size_t i = 0; i < lookup.size(); ++i) {
    if (!stored[i]) continue;
    in.known_signatures.emplace(lookup[i], stored[i]->values);
    stored_by_vehicle.emplace(lookup[i], &*stored[i]);
  }

  SeedStream random(seed);
  in.params = ReleaseParamsFromConfig(config.privacy);
  in.params.seed = random.NextU64();
  const double lookup_ms = lap();
  ReleaseOutput out = ComputeRelease(schema, in);
  if (TakeShareCorruption() && !out.groups.empty() && !out.groups[0].members.empty()) {
    out.groups[0].members.push_back(out.groups[0].members[0]);
  }
  // The independent oracle, on every share before anything of it can be
  // produced: the engine's output is re-derived from the input tuples
  // (groups m-unique, signatures stable, labels covering, every tuple
  // accounted once). A fresh checker per share sees the stored signatures
  // through the input; the sequence of releases is its own test.
  share.violations = ReleaseChecker(schema).Check(in, out);
  if (!share.violations.empty()) {
    // Nothing computed from `out` may leave; the events go back whole.
    share.current_consumed.assign(ev.current.size(), true);
    share.old_consumed.assign(ev.old.size(), true);
    share.spent = std::make_unique<EpochEvents>(std::move(ev));
    return share;
  }
  const double engine_ms = lap();
  share.records = WriteRelease({&schema, config.sensitive ? &dict : nullptr, ctx.payload},
                               {partition, ctx.input_partitions, start, end}, in, out, tuple_events, &random);

  // DP counts on the raw events of the epoch, suppressed vehicles included.
  // The ledger charge is durable before any noisy value leaves; a
  // recomputation finds it spent and draws the same noise from `random`.
  const double write_ms = lap();
  if (ctx.dp) share.dp = ctx.dp->Compute(partition, epoch, start, end, ev.current, random);
  const double dp_ms = lap();

  // The state changes. The epoch's events go with one range deletion; the
  // few that still-waiting tuples own are put back after it (in a write
  // batch the later operation wins). One tombstone per share instead of
  // one per event keeps both the batch and later scans cheap.
  share.apply = std::make_unique<ReleaseWrite>(store);
  ReleaseWrite& w = *share.apply;
  const size_t n_current = in.tuples.size();
  std::vector<bool> consumed(ev.current.size(), false), old_deleted(ev.old.size(), false);
  auto consume = [&](TupleRef ref, bool published) -> uint64_t {
    uint64_t n = 0;
    for (const BufferedEvent* e : tuple_events[ref]) {
      if (ref < n_current) {
        consumed[static_cast<size_t>(e - ev.current.data())] = true;
      } else {
        size_t i = static_cast<size_t>(e - ev.old.data());
        w.DeleteEvent(partition, ev.old_keys[i].first, ev.old_keys[i].second);
        old_deleted[i] = true;
      }
      if (published) share.published_ts.push_back(e->ts_ms);
      ++n;
    }
    return n;
  };
  w.DeleteEventRange(partition, start, end);
  // Purge before the puts below: a vehicle published now must keep the
  // signature they refresh.
  PurgeSignatures(ctx, partition, epoch, &w);
  for (const Group& g : out.groups) {
    for (TupleRef ref : g.members) {
      share.published_events += consume(ref, true);
      const std::string& vehicle = ResolveTuple(in, ref).vehicle;
      auto known = stored_by_vehicle.find(vehicle);
      if (known != stored_by_vehicle.end()) {
        StoredSignature s = *known->second;
        s.last_release = epoch;
        w.PutSignature(partition, vehicle, s);
      }
    }
  }
  for (const Suppressed& s : out.suppressed) share.suppressed_events += consume(s.ref, false);
  for (const auto& [vehicle, sig] : out.new_signatures) {
    w.PutSignature(partition, vehicle, StoredSignature{sig, epoch, epoch});
  }
  std::string encoded;
  for (size_t i = 0; i < ev.current.size(); ++i) {
    if (consumed[i]) continue;
    encoded.clear();
    EncodeBufferedEvent(ev.current[i], &encoded);
    w.PutEvent(partition, ev.current_keys[i].first, ev.current_keys[i].second, encoded);
  }
  // Events older than the epoch that no waiting tuple owns cannot occur
  // (apply deletes them with their tuple); if state says otherwise they
  // are counted as suppressed rather than kept forever.
  std::unordered_set<std::string> owned;
  for (const WaitingTuple& wt : in.waiting) owned.insert(wt.tuple.vehicle);
  uint64_t orphans = 0;
  for (const auto& [vehicle, idx] : old_by_vehicle) {
    if (owned.count(vehicle)) continue;
    for (size_t i : idx) {
      w.DeleteEvent(partition, ev.old_keys[i].first, ev.old_keys[i].second);
      old_deleted[i] = true;
    }
    orphans += idx.size();
  }
  if (orphans > 0) {
    spdlog::error("release {} partition {}: {} buffered events had no waiting tuple; counted as suppressed",
                  epoch, partition, orphans);
    share.suppressed_events += orphans;
  }
  for (const WaitingTuple& wt : in.waiting) w.DeleteWaiting(partition, wt.tuple.vehicle);
  for (const StillWaiting& sw : out.waiting) w.PutWaiting(partition, WaitingTuple{ResolveTuple(in, sw.ref), sw.first_release});
  if (ctx.dp) ctx.dp->Apply(partition, share.dp, &w);
  w.PutMeta(partition, kDictionaryMeta, dict.EncodeState());

  // What the batch keeps goes back to the partition's EventBuffer at apply.
  for (size_t i = 0; i < ev.current.size(); ++i) {
    if (!consumed[i]) share.remaining.push_back({ev.current_keys[i].first, ev.current_keys[i].second, std::move(ev.current[i])});
  }
  for (size_t i = 0; i < ev.old.size(); ++i) {
    if (!old_deleted[i]) share.remaining.push_back({ev.old_keys[i].first, ev.old_keys[i].second, std::move(ev.old[i])});
  }
  share.current_consumed = std::move(consumed);
  share.old_consumed = std::move(old_deleted);
  const size_t n_events = ev.current.size();
  share.spent = std::make_unique<EpochEvents>(std::move(ev));

  share.metrics = out.metrics;
  share.waiting = out.waiting.size();
  timespec cpu1{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
  const double cpu_ms = static_cast<double>(cpu1.tv_sec - cpu0.tv_sec) * 1e3 + static_cast<double>(cpu1.tv_nsec - cpu0.tv_nsec) / 1e6;
  spdlog::debug("release {} partition {}: {} events, {:.0f} ms of CPU; wall ms: arrange {:.0f}, tuples {:.0f}, signatures {:.0f}, engine {:.0f}, "
                "records {:.0f}, dp {:.0f}, state batch {:.0f}",
                epoch, partition, n_events, cpu_ms, arrange_ms, build_ms, lookup_ms, engine_ms, write_ms, dp_ms, lap());
  return share;
}

void ReturnEvents(ComputedShare* share, EventBuffer* buffer) {
  for (KeyedEvent& e : share->remaining) buffer->Restore(std::move(e));
  share->remaining.clear();
  if (!share->spent) return;
  EpochEvents& ev = *share->spent;
  for (size_t i = 0; i < ev.current.size(); ++i) {
    if (share->current_consumed[i]) buffer->Restore({ev.current_keys[i].first, ev.current_keys[i].second, std::move(ev.current[i])});
  }
  for (size_t i = 0; i < ev.old.size(); ++i) {
    if (share->old_consumed[i]) buffer->Restore({ev.old_keys[i].first, ev.old_keys[i].second, std::move(ev.old[i])});
  }
  share->spent.reset();
}

}  // namespace vanon
