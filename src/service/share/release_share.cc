#include "service/share/release_share.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <map>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "vanon/engine/checker.h"
#include "vanon/ingest/buffered_event.h"
#include "vanon/release/epoch_clock.h"
#include "vanon/release/schema_from_config.h"
#include "vanon/release/seed_stream.h"
#include "vanon/release/sensitive_dictionary.h"
#include "vanon/release/tuple_builder.h"
#include "service/share/dictionary_id_error.h"
#include "service/share/share_windows.h"
#include "service/support/fault_injection.h"

namespace vanon::service {

namespace {

std::string_view TokenView(const ingest::HmacToken& t) { return {reinterpret_cast<const char*>(t.data()), t.size()}; }
std::string VehicleKey(const ingest::HmacToken& t) { return std::string(TokenView(t)); }

// The retention horizon in epochs, and how stale a stored last_release may
// be. Rewriting every published vehicle's signature in every release only to
// move last_release was most of a release's apply batch and changelog (one
// record per published vehicle per release): it is refreshed only once it is
// `refresh` epochs old, and the purge waits `refresh` epochs longer to make
// up for it, so a signature is still kept at least the whole horizon after
// its vehicle's true last publication (kept up to 1/64 of the horizon
// longer, never shorter).
struct Retention {
  int64_t horizon = 0, refresh = 1;
};
Retention RetentionOf(const ShareContext& ctx) {
  Retention r;
  r.horizon = static_cast<int64_t>(ctx.config->privacy.signature_retention_days) * 86400 /
              std::max<int64_t>(ctx.config->privacy.epoch.length_seconds, 1);
  r.refresh = std::max<int64_t>(1, r.horizon / 64);
  return r;
}

// Signatures of vehicles not published for longer than the retention
// horizon are forgotten: the guarantee covers releases inside it. A scan
// per release is cheap next to the release itself, but every 64 releases
// is often enough.
void PurgeSignatures(const ShareContext& ctx, int32_t partition, int64_t epoch, ShareDelta* d) {
  if (epoch % 64 != 0) return;
  const Retention r = RetentionOf(ctx);
  ctx.state->ScanSignatures(partition, [&](std::string_view vehicle, const state::StoredSignature& s) {
    if (s.last_release < epoch - r.horizon - r.refresh) d->Add(ShareDelta::DeleteSignature{std::string(vehicle)});
    return true;
  });
  PurgeWindows(*ctx.state, partition, epoch - r.horizon - r.refresh, d);
}

// Wall time per phase for the debug log: where a slow release spends it.
class PhaseTimer {
 public:
  double Lap() {
    const auto now = std::chrono::steady_clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - last_).count();
    last_ = now;
    return ms;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

double ThreadCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

// What one share's steps read and produce. Not movable: tuple_events points
// into ev, stored_of_ref into stored.
struct ShareWork {
  ShareWork(const ShareContext& c, int32_t p, int64_t e)
      : ctx(c), partition(p), epoch(e), dict(c.schema->sensitive_hierarchy.get()) {
    const release::EpochClock clock(c.config->privacy.epoch);
    start = clock.EpochStart(e);
    end = clock.EpochEnd(e);
  }
  ShareWork(const ShareWork&) = delete;
  ShareWork& operator=(const ShareWork&) = delete;

  const ShareContext& ctx;
  const int32_t partition;
  const int64_t epoch;
  int64_t start = 0, end = 0;
  release::EpochEvents ev;
  release::SensitiveDictionary dict;
  engine::ReleaseInput in;
  release::TupleEvents tuple_events;
  std::vector<bool> old_owned;  // per event of ev.old: a waiting tuple holds it
  std::vector<std::optional<state::StoredSignature>> stored;
  std::vector<const state::StoredSignature*> stored_of_ref;  // by TupleRef; null: a new vehicle
  engine::ReleaseOutput out;
  std::vector<bool> consumed, old_deleted;  // per event of ev.current, ev.old
  // The events family holds some of ev.old (StateStore::HasEventsBefore).
  bool old_in_events_family = false;
  std::unique_ptr<ShareWindows> windows;  // null when the config keeps none
};

// The distinct vehicles of the epoch's events and of the waiting tuples.
std::vector<std::string> VehiclesOf(const std::vector<ingest::BufferedEvent>& events,
                                    const std::vector<engine::WaitingTuple>& waiting) {
  std::unordered_set<std::string> seen;
  std::vector<std::string> out;
  for (const ingest::BufferedEvent& e : events) {
    std::string key = VehicleKey(e.vehicle_key);
    if (seen.insert(key).second) out.push_back(std::move(key));
  }
  for (const engine::WaitingTuple& wt : waiting) {
    if (seen.insert(wt.tuple.vehicle).second) out.push_back(wt.tuple.vehicle);
  }
  return out;
}

// An id beyond the partition's dictionary (damaged state) would be read out
// of bounds when a group record lists its values: the share stops here with
// the partition named instead (dictionary_id_error.h).
void CheckIdsInDictionary(const ShareWork& w) {
  const size_t n = w.dict.size();
  auto refuse = [&](const char* what, size_t id) { throw IdBeyondDictionary(w.partition, what, n, id); };
  for (const std::optional<state::StoredSignature>& s : w.stored) {
    if (!s) continue;
    for (engine::SensitiveId id : s->values) {
      if (id >= n) refuse("a stored signature", id);
    }
  }
  for (const engine::WaitingTuple& wt : w.in.waiting) {
    if (wt.tuple.sensitive >= n) refuse("a waiting tuple", wt.tuple.sensitive);
  }
}

// Older events belong to waiting tuples, by vehicle. Both sides are sorted
// by the first 8 bytes of the vehicle key (HMAC output, so nearly unique)
// and joined in one pass; keys are compared whole only within a run of
// equal prefixes. A hash map of vehicle keys here cost two allocations per
// older event, in a large fleet a million per release.
void AttachOlderEvents(ShareWork& w) {
  const auto prefix = [](std::string_view key) {
    uint64_t p = 0;
    std::memcpy(&p, key.data(), std::min(key.size(), sizeof(p)));
    return p;
  };
  std::vector<std::pair<uint64_t, size_t>> old(w.ev.old.size()), waiting(w.in.waiting.size());
  for (size_t i = 0; i < old.size(); ++i) old[i] = {prefix(TokenView(w.ev.old[i].vehicle_key)), i};
  for (size_t k = 0; k < waiting.size(); ++k) waiting[k] = {prefix(w.in.waiting[k].tuple.vehicle), k};
  std::sort(old.begin(), old.end());
  std::sort(waiting.begin(), waiting.end());
  w.old_owned.assign(w.ev.old.size(), false);
  size_t run = 0;  // first of `old` whose prefix is not below the current one
  for (const auto& [p, k] : waiting) {
    while (run < old.size() && old[run].first < p) ++run;
    for (size_t j = run; j < old.size() && old[j].first == p; ++j) {
      const size_t i = old[j].second;
      if (TokenView(w.ev.old[i].vehicle_key) != w.in.waiting[k].tuple.vehicle) continue;
      w.tuple_events[w.in.tuples.size() + k].push_back(&w.ev.old[i]);
      w.old_owned[i] = true;
    }
  }
}

// The epoch's tuples (built from its events with the partition's sensitive
// dictionary), the waiting tuples with their older events, and the stored
// signatures of every vehicle among them.
void LoadInput(ShareWork& w, release::TakenEvents taken, ComputedShare* share) {
  const ShareState& state = *w.ctx.state;
  w.ev = ArrangeEpochEvents(std::move(taken), w.start);
  if (auto d = state.GetMeta(w.partition, kDictionaryMeta)) {
    if (!w.dict.DecodeState(*d)) throw std::runtime_error("state: unreadable sensitive dictionary");
  }
  release::TupleBuilder builder(w.ctx.config->quasi_identifiers, w.ctx.config->sensitive, *w.ctx.schema,
                                w.ctx.sensitive_extra, &w.dict);
  w.in.release_id = static_cast<uint64_t>(w.epoch);
  w.in.waiting = state.LoadWaiting(w.partition);
  release::TupleBuilder::ValueChooser choose;
  if (KeepsValueWindows(*w.ctx.config)) {
    w.windows = std::make_unique<ShareWindows>(*w.ctx.config, &w.dict, w.epoch);
    w.windows->Load(state, w.partition, VehiclesOf(w.ev.current, w.in.waiting));
    choose = [&w](std::string_view vehicle, const std::vector<engine::ValueCount>& counts) {
      return w.windows->Advance(vehicle, counts);
    };
  }
  release::BuiltTuples built = builder.Build(w.ev.current, choose);
  share->qi_at_root = built.qi_at_root;
  w.tuple_events = EventsOfBuiltTuples(built, w.ev.current, w.in.waiting.size());
  w.in.tuples = std::move(built.tuples);

  AttachOlderEvents(w);
  w.old_in_events_family = !w.ev.old.empty() && state.HasEventsBefore(w.partition, w.start);

  // In key order (tuples and waiting tuples are each sorted by vehicle):
  // the store's lookup is cheaper for sorted keys, and known_signatures (an
  // ordered map) then grows at its end instead of being searched.
  std::vector<engine::TupleRef> order(w.in.tuples.size() + w.in.waiting.size());
  std::iota(order.begin(), order.end(), engine::TupleRef{0});
  std::inplace_merge(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(w.in.tuples.size()), order.end(),
                     [&w](engine::TupleRef a, engine::TupleRef b) {
                       return ResolveTuple(w.in, a).vehicle < ResolveTuple(w.in, b).vehicle;
                     });
  std::vector<std::string> lookup;
  lookup.reserve(order.size());
  for (engine::TupleRef ref : order) lookup.push_back(ResolveTuple(w.in, ref).vehicle);
  w.stored = state.GetSignatures(w.partition, lookup);
  CheckIdsInDictionary(w);
  w.stored_of_ref.assign(order.size(), nullptr);
  for (size_t i = 0; i < lookup.size(); ++i) {
    if (!w.stored[i]) continue;
    w.stored_of_ref[order[i]] = &*w.stored[i];
    w.in.known_signatures.emplace_hint(w.in.known_signatures.end(), std::move(lookup[i]), w.stored[i]->values);
  }
  if (w.windows) w.windows->AddHistories(&w.in);
}

// Marks the events of one tuple consumed (in state, current ones are
// covered by the epoch's range deletion, older ones by their waiting
// record's: OwnedEventsLeaveTheEventsFamily). Returns how many.
uint64_t ConsumeTupleEvents(ShareWork& w, engine::TupleRef ref, bool published, ComputedShare* share) {
  uint64_t n = 0;
  for (const ingest::BufferedEvent* e : w.tuple_events[ref]) {
    if (ref < w.in.tuples.size()) {
      w.consumed[static_cast<size_t>(e - w.ev.current.data())] = true;
    } else {
      w.old_deleted[static_cast<size_t>(e - w.ev.old.data())] = true;
    }
    if (published) share->published_ts.push_back(e->ts_ms);
    ++n;
  }
  return n;
}

// Published and suppressed tuples take their events; published vehicles
// refresh their signature's last release once it is stale (RetentionOf),
// new vehicles store theirs.
void RecordPublication(ShareWork& w, ComputedShare* share) {
  ShareDelta& delta = share->delta;
  const int64_t refresh = RetentionOf(w.ctx).refresh;
  for (const engine::Group& g : w.out.groups) {
    for (engine::TupleRef ref : g.members) {
      share->published_events += ConsumeTupleEvents(w, ref, true, share);
      const state::StoredSignature* known = w.stored_of_ref[ref];
      if (known != nullptr && w.epoch - known->last_release >= refresh) {
        state::StoredSignature s = *known;
        s.last_release = w.epoch;
        delta.Add(ShareDelta::PutSignature{ResolveTuple(w.in, ref).vehicle, s});
      }
    }
  }
  for (const engine::Suppressed& s : w.out.suppressed)
    share->suppressed_events += ConsumeTupleEvents(w, s.ref, false, share);
  for (const auto& [vehicle, sig] : w.out.new_signatures) {
    delta.Add(ShareDelta::PutSignature{vehicle, state::StoredSignature{sig, w.epoch, w.epoch}});
  }
}

// Events older than the epoch that no waiting tuple owns cannot occur
// (apply deletes them with their tuple); if state says otherwise they are
// counted as suppressed rather than kept forever.
void DropOrphanEvents(ShareWork& w, ComputedShare* share) {
  uint64_t orphans = 0;
  for (size_t i = 0; i < w.old_owned.size(); ++i) {
    if (w.old_owned[i]) continue;
    w.old_deleted[i] = true;
    ++orphans;
  }
  if (orphans > 0) {
    spdlog::error("release {} partition {}: {} buffered events had no waiting tuple; counted as suppressed", w.epoch,
                  w.partition, orphans);
    share->suppressed_events += orphans;
  }
}

// Encodes an event a waiting tuple keeps, without its sensitive field. The
// tuple's value is stored once, with the tuple (PutWaiting); its events are
// kept only to be published with it, which never reads that field, and a
// release only aggregates the events of its own epoch. So the raw value is
// not kept once per event (in state and in the changelog).
void EncodeWithoutSensitive(int sensitive_extra, ingest::BufferedEvent* e, std::string* out) {
  const auto idx = static_cast<size_t>(sensitive_extra);
  if (sensitive_extra < 0 || idx >= e->extras.size() || !e->extras[idx]) {
    EncodeBufferedEvent(*e, out);
    return;
  }
  std::optional<std::string> held = std::move(e->extras[idx]);
  e->extras[idx].reset();
  EncodeBufferedEvent(*e, out);
  e->extras[idx] = std::move(held);
}

// Events older than the epoch are kept inside their tuple's waiting record,
// except in a store written before records carried them (or a tuple's too
// large for one record): those are in the events family, and every older
// event leaves it now, consumed or moved into its record. A tombstone of a
// key the family never held costs one changelog record, only here.
void OwnedEventsLeaveTheEventsFamily(const ShareWork& w, ShareDelta* delta) {
  if (!w.old_in_events_family) return;
  for (const auto& [ts, offset] : w.ev.old_keys) delta->Add(ShareDelta::DeleteEvent{ts, offset});
}

// The events a still-waiting tuple owns, as its waiting record keeps them.
std::vector<state::WaitingEvent> WaitingEventsOf(ShareWork& w, engine::TupleRef ref) {
  const bool current = ref < w.in.tuples.size();
  std::vector<state::WaitingEvent> out;
  out.reserve(w.tuple_events[ref].size());
  for (const ingest::BufferedEvent* e : w.tuple_events[ref]) {
    const auto i = static_cast<size_t>(e - (current ? w.ev.current.data() : w.ev.old.data()));
    const auto& [ts, offset] = current ? w.ev.current_keys[i] : w.ev.old_keys[i];
    state::WaitingEvent stored{ts, offset, {}};
    EncodeWithoutSensitive(w.ctx.sensitive_extra, current ? &w.ev.current[i] : &w.ev.old[i], &stored.encoded);
    out.push_back(std::move(stored));
  }
  return out;
}

// Whether a still-waiting tuple's record in state is already exactly what
// this share would write: a tuple that waited before and still waits, with
// the same first release, whose events all came from waiting records (none
// from the events family). Its record is left alone: in a large fleet most
// waiting tuples wait through several releases, and rewriting each one in
// every release was most of the changelog (one record per waiting tuple per
// release, events included).
bool RecordUnchanged(const ShareWork& w, const engine::StillWaiting& sw) {
  if (sw.ref < w.in.tuples.size() || w.old_in_events_family) return false;
  return w.in.waiting[sw.ref - w.in.tuples.size()].first_release == sw.first_release;
}

// One record per still-waiting tuple, with its events: one changelog record
// instead of one per event (and a tombstone per event later). A record
// rewritten or left as it is needs no delete.
void WriteWaitingTuples(ShareWork& w, ShareDelta* delta) {
  std::unordered_set<std::string_view> kept;
  kept.reserve(w.out.waiting.size());
  std::vector<ShareDelta::PutWaiting> puts;
  puts.reserve(w.out.waiting.size());
  for (const engine::StillWaiting& sw : w.out.waiting) {
    const engine::Tuple& tuple = ResolveTuple(w.in, sw.ref);
    kept.insert(tuple.vehicle);
    if (RecordUnchanged(w, sw)) continue;
    ShareDelta::PutWaiting put{engine::WaitingTuple{tuple, sw.first_release}, WaitingEventsOf(w, sw.ref)};
    size_t bytes = 0;
    for (const state::WaitingEvent& e : put.events) bytes += e.encoded.size();
    if (bytes > state::kMaxWaitingEventBytes) {
      for (state::WaitingEvent& e : put.events)
        delta->Add(ShareDelta::PutEvent{e.ts_ms, e.offset, std::move(e.encoded)});
      put.events.clear();
    }
    puts.push_back(std::move(put));
  }
  for (const engine::WaitingTuple& wt : w.in.waiting) {
    if (!kept.count(wt.tuple.vehicle)) delta->Add(ShareDelta::DeleteWaiting{wt.tuple.vehicle});
  }
  for (ShareDelta::PutWaiting& put : puts) delta->Add(std::move(put));
}

// The state changes. The epoch's events go with one range deletion; the
// ones still-waiting tuples own go into their waiting records. One
// tombstone per share instead of one per event keeps both the batch and
// later scans cheap.
void WriteStateChanges(ShareWork& w, ComputedShare* share) {
  ShareDelta& delta = share->delta;
  delta.partition = w.partition;
  w.consumed.assign(w.ev.current.size(), false);
  w.old_deleted.assign(w.ev.old.size(), false);
  delta.Add(ShareDelta::DeleteEventRange{w.start, w.end});
  // Purge before the puts below: a vehicle published now must keep the
  // signature they refresh.
  PurgeSignatures(w.ctx, w.partition, w.epoch, &delta);
  RecordPublication(w, share);
  DropOrphanEvents(w, share);
  // Before WriteWaitingTuples: its puts of events too large for a record
  // must win over these deletes.
  OwnedEventsLeaveTheEventsFamily(w, &delta);
  WriteWaitingTuples(w, &delta);
  if (w.windows) w.windows->WriteChanges(&delta);
  if (w.ctx.dp) w.ctx.dp->Apply(share->dp, &delta);
  delta.Add(ShareDelta::PutMeta{kDictionaryMeta, w.dict.EncodeState()});
}

// What the batch keeps goes back to the partition's EventBuffer at apply;
// the consumed events travel with the share, to be freed where allocated.
void HandOverEvents(ShareWork& w, ComputedShare* share) {
  release::EpochEvents& ev = w.ev;
  const auto kept = [](const std::vector<bool>& consumed) {
    return static_cast<size_t>(std::count(consumed.begin(), consumed.end(), false));
  };
  share->remaining.reserve(share->remaining.size() + kept(w.consumed) + kept(w.old_deleted));
  for (size_t i = 0; i < ev.current.size(); ++i) {
    if (!w.consumed[i])
      share->remaining.push_back({ev.current_keys[i].first, ev.current_keys[i].second, std::move(ev.current[i])});
  }
  for (size_t i = 0; i < ev.old.size(); ++i) {
    if (!w.old_deleted[i])
      share->remaining.push_back({ev.old_keys[i].first, ev.old_keys[i].second, std::move(ev.old[i])});
  }
  share->current_consumed = std::move(w.consumed);
  share->old_consumed = std::move(w.old_deleted);
  share->spent = std::make_unique<release::EpochEvents>(std::move(ev));
}

// What the checker remembers of the partition's earlier shares, from state:
// every stored signature with the last release state records for it (at
// most horizon/64 releases stale, which only makes the horizon rule more
// lenient), and the waiting tuples.
void ResumeChecker(const ShareContext& ctx, int32_t partition, PartitionChecker* checker) {
  std::vector<engine::ReleaseChecker::Published> published;
  ctx.state->ScanSignatures(partition, [&](std::string_view vehicle, const state::StoredSignature& s) {
    published.push_back({std::string(vehicle), s.values, static_cast<uint64_t>(s.last_release)});
    return true;
  });
  std::multimap<std::string, uint64_t> waiting;
  for (const engine::WaitingTuple& w : ctx.state->LoadWaiting(partition)) {
    waiting.emplace(w.tuple.vehicle, w.first_release);
  }
  checker->checker.Resume(published, std::move(waiting));
  checker->resumed = true;
}

}  // namespace

ComputedShare ComputeShare(const ShareContext& ctx, int32_t partition, int64_t epoch, const release::ReleaseSeed& seed,
                           bool committed_before, release::TakenEvents taken, PartitionChecker* checker) {
  if (!checker->resumed) ResumeChecker(ctx, partition, checker);
  ComputedShare share;
  share.partition = partition;
  share.epoch = epoch;
  share.committed_before = committed_before;
  PhaseTimer timer;
  const double cpu0 = ThreadCpuMs();
  ShareWork w(ctx, partition, epoch);
  LoadInput(w, std::move(taken), &share);
  const double load_ms = timer.Lap();

  release::SeedStream random(seed);
  w.in.params = release::ReleaseParamsFromConfig(ctx.config->privacy);
  w.in.params.seed = random.NextU64();
  // The checker lets a signature go missing only past this many releases
  // without publication; PurgeSignatures drops them later than that.
  w.in.params.signature_horizon = static_cast<uint64_t>(RetentionOf(ctx).horizon);
  w.out = ComputeRelease(*ctx.schema, w.in);
  if (TakeShareCorruption() && !w.out.groups.empty() && !w.out.groups[0].members.empty()) {
    w.out.groups[0].members.push_back(w.out.groups[0].members[0]);
  }
  // The independent oracle, on every share before anything of it can be
  // produced: the engine's output is re-derived from the input tuples
  // (groups m-unique, signatures stable, labels covering, every tuple
  // accounted once), and checked against the partition's earlier shares
  // (a vehicle published before keeps its signature, and its stored one
  // must be in the input).
  share.verdict = checker->checker.Verify(w.in, w.out);
  share.violations = share.verdict.violations();
  if (!share.violations.empty()) {
    // Nothing computed from `out` may leave; the events go back whole.
    share.current_consumed.assign(w.ev.current.size(), true);
    share.old_consumed.assign(w.ev.old.size(), true);
    share.spent = std::make_unique<release::EpochEvents>(std::move(w.ev));
    return share;
  }
  if (ctx.inspect) ctx.inspect(w.in, w.out);
  const double engine_ms = timer.Lap();
  share.records = WriteRelease({ctx.schema, ctx.config->sensitive ? &w.dict : nullptr, ctx.payload},
                               {partition, ctx.input_partitions, w.start, w.end}, w.in, w.out, w.tuple_events, &random);
  const double write_ms = timer.Lap();
  // DP counts on the raw events of the epoch, suppressed vehicles included.
  // The ledger charge is durable before any noisy value leaves; a
  // recomputation finds it spent and draws the same noise from `random`.
  // The current tuples list the epoch's events grouped by vehicle, in key
  // order: the DP counts need not group them again.
  if (ctx.dp) {
    share.dp =
        ctx.dp->Compute(partition, epoch, w.start, w.end, std::span(w.tuple_events).first(w.in.tuples.size()), random);
  }
  const double dp_ms = timer.Lap();

  WriteStateChanges(w, &share);
  const size_t n_events = w.ev.current.size();
  HandOverEvents(w, &share);
  share.metrics = w.out.metrics;
  share.waiting = w.out.waiting.size();
  spdlog::debug(
      "release {} partition {}: {} events, {:.0f} ms of CPU; wall ms: input and signatures {:.0f}, "
      "engine {:.0f}, records {:.0f}, dp {:.0f}, state batch {:.0f}",
      epoch, partition, n_events, ThreadCpuMs() - cpu0, load_ms, engine_ms, write_ms, dp_ms, timer.Lap());
  return share;
}

void ReturnEvents(ComputedShare* share, release::EventBuffer* buffer) {
  for (release::KeyedEvent& e : share->remaining) buffer->Restore(std::move(e));
  share->remaining.clear();
  if (!share->spent) return;
  release::EpochEvents& ev = *share->spent;
  for (size_t i = 0; i < ev.current.size(); ++i) {
    if (share->current_consumed[i])
      buffer->Restore({ev.current_keys[i].first, ev.current_keys[i].second, std::move(ev.current[i])});
  }
  for (size_t i = 0; i < ev.old.size(); ++i) {
    if (share->old_consumed[i]) buffer->Restore({ev.old_keys[i].first, ev.old_keys[i].second, std::move(ev.old[i])});
  }
  share->spent.reset();
}

}  // namespace vanon::service
