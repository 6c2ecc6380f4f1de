// The release share as a function of its events and of the partition's
// state, over an in-memory ShareState: no RocksDB, no Kafka. Each test
// asserts on the state delta a share produces, and carries it into the
// next share as the runner's apply would.

#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "memory_share_state.h"
#include "release_fixture.h"
#include "service/share/release_share.h"
#include "vanon/ingest/buffered_event.h"
#include "vanon/release/epoch_clock.h"
#include "vanon/release/event_buffer.h"
#include "vanon/release/payload_transformer.h"
#include "vanon/release/schema_from_config.h"
#include "vanon/release/seed_stream.h"
#include "vanon/release/sensitive_dictionary.h"
#include "service/dp/dp_publisher.h"

namespace vanon::service {
namespace {

constexpr int32_t kPartition = 3;
constexpr int64_t kEpochMs = 60'000;
constexpr int64_t kEpoch = 100;  // first epoch of a DP window of two

std::string VehicleOf(uint32_t v) {
  const ingest::HmacToken k = release_test::Key(v);
  return std::string(reinterpret_cast<const char*>(k.data()), k.size());
}

release::ReleaseSeed SeedOf(uint8_t b) {
  release::ReleaseSeed s{};
  s.fill(b);
  return s;
}

template <typename T>
std::vector<T> OpsOf(const ShareDelta& d) {
  std::vector<T> out;
  for (const ShareDelta::Op& op : d.ops) {
    if (const T* o = std::get_if<T>(&op)) out.push_back(*o);
  }
  return out;
}

// The events a share stores inside its waiting records.
std::vector<state::WaitingEvent> WaitingEventsOf(const ShareDelta& d) {
  std::vector<state::WaitingEvent> out;
  for (const ShareDelta::PutWaiting& put : OpsOf<ShareDelta::PutWaiting>(d)) {
    out.insert(out.end(), put.events.begin(), put.events.end());
  }
  return out;
}

// A runner's view of one partition: its event buffer, its state, and the
// share's context; Apply() does what the runner's apply does to both.
class Partition {
 public:
  explicit Partition(config::Config c)
      : config_(std::move(c)),
        schema_(release::SchemaFromConfig(config_.quasi_identifiers, config_.sensitive)),
        payload_(config_.payload),
        buffer_(kEpochMs) {
    if (config_.dp.enabled) dp_ = std::make_unique<DpPublisher>(config_, "share-test-key", &state_, registry_);
    ctx_.config = &config_;
    ctx_.schema = &schema_;
    ctx_.sensitive_extra = 0;
    ctx_.input_partitions = 4;
    ctx_.state = &state_;
    ctx_.dp = dp_.get();
    ctx_.payload = &payload_;
  }

  void Add(const std::vector<ingest::BufferedEvent>& events) {
    for (const ingest::BufferedEvent& e : events) buffer_.Add({e.ts_ms, next_offset_++, e});
  }
  // With the partition's checker, or another one.
  ComputedShare Compute(int64_t epoch, uint8_t seed, PartitionChecker* checker = nullptr) {
    const release::EpochClock clock(config_.privacy.epoch);
    return ComputeShare(ctx_, kPartition, epoch, SeedOf(seed), false, buffer_.Take(clock.EpochEnd(epoch)),
                        checker != nullptr ? checker : &*checker_);
  }
  const engine::Schema& schema() const { return schema_; }
  // A share not applied (a precomputed one dropped, a withheld batch): its
  // events go back to the buffer, and nothing else of it remains.
  void Drop(ComputedShare* share) { ReturnEvents(share, &buffer_); }
  void Apply(ComputedShare* share) {
    state_.Apply(share->delta);
    checker_->checker.Accept(std::move(share->verdict));
    for (release::KeyedEvent& e : share->remaining) buffer_.Restore(std::move(e));
    share->remaining.clear();
  }
  ComputedShare Release(int64_t epoch, const std::vector<ingest::BufferedEvent>& events, uint8_t seed = 1) {
    Add(events);
    ComputedShare s = Compute(epoch, seed);
    EXPECT_TRUE(s.violations.empty()) << s.violations.front();
    Apply(&s);
    return s;
  }

  // A restarted instance: the buffer holds only what state keeps (the
  // events inside waiting records; this state keeps no event values of the
  // events family, so there must be none), the checker resumes from state.
  void RestartFromState() {
    ASSERT_EQ(state_.event_keys(), 0u) << "events in the events family would be lost here";
    buffer_ = release::EventBuffer(kEpochMs);
    for (const state::WaitingEvent& stored : state_.WaitingEvents(kPartition)) {
      release::KeyedEvent e{stored.ts_ms, stored.offset, {}};
      ASSERT_TRUE(ingest::DecodeBufferedEvent(stored.encoded, &e.event));
      buffer_.Add(std::move(e));
    }
    checker_.emplace(schema_);
  }

  MemoryShareState& state() { return state_; }
  size_t buffered() const { return buffer_.size(); }

 private:
  config::Config config_;
  engine::Schema schema_;
  release::PayloadTransformer payload_;
  release::EventBuffer buffer_;
  int64_t next_offset_ = 0;
  MemoryShareState state_;
  prometheus::Registry registry_;
  std::unique_ptr<DpPublisher> dp_;
  ShareContext ctx_;
  std::optional<PartitionChecker> checker_{std::in_place, schema_};
};

config::Config ShareConfig() {
  static const std::string hierarchy = release_test::WriteEngineHierarchy();
  config::Config c = release_test::TestConfig(hierarchy);
  c.privacy.epoch.length_seconds = kEpochMs / 1000;
  c.privacy.m = 3;
  c.dp.enabled = false;  // on by default; DpWindowConfig turns it on
  return c;
}

std::vector<ingest::BufferedEvent> Vehicles(uint32_t first, uint32_t n, int64_t epoch, uint64_t seed, int artists = 6) {
  return release_test::Generate(first, n, epoch * kEpochMs, seed, artists);
}

// Three new vehicles with one value, two events each: with m = 3 they wait
// until tuples of two other values wait beside them.
std::vector<ingest::BufferedEvent> Trio(uint32_t first, int64_t epoch, const std::string& value) {
  std::vector<ingest::BufferedEvent> out;
  for (uint32_t v = first; v < first + 3; ++v) {
    for (int64_t i = 0; i < 2; ++i) {
      out.push_back(release_test::Event(v, epoch * kEpochMs + 1000 * (2 * (v - first) + i), "Diesel", "4", value,
                                        "{\"speed\":50}"));
    }
  }
  return out;
}

TEST(ReleaseShareTest, FirstReleaseStoresTheSignatureOfEveryPublishedVehicle) {
  Partition p(ShareConfig());
  const std::vector<ingest::BufferedEvent> events = Vehicles(0, 40, kEpoch, 11);
  const ComputedShare s = p.Release(kEpoch, events);

  ASSERT_GT(s.published_events, 0u);
  EXPECT_EQ(s.published_events + s.suppressed_events + p.buffered(), events.size());
  const ShareDelta& d = s.delta;
  EXPECT_EQ(d.partition, kPartition);
  // The epoch's events go first, with one range deletion.
  ASSERT_FALSE(d.ops.empty());
  const auto* range = std::get_if<ShareDelta::DeleteEventRange>(&d.ops.front());
  ASSERT_NE(range, nullptr);
  EXPECT_EQ(range->from_ms, kEpoch * kEpochMs);
  EXPECT_EQ(range->to_ms, (kEpoch + 1) * kEpochMs);
  // Every published vehicle is new: its signature starts here.
  std::set<std::string> all;
  for (uint32_t v = 0; v < 40; ++v) all.insert(VehicleOf(v));
  const auto signatures = OpsOf<ShareDelta::PutSignature>(d);
  EXPECT_FALSE(signatures.empty());
  for (const ShareDelta::PutSignature& put : signatures) {
    EXPECT_TRUE(all.count(put.vehicle));
    EXPECT_EQ(put.signature.first_release, kEpoch);
    EXPECT_EQ(put.signature.last_release, kEpoch);
    EXPECT_GE(put.signature.values.size(), 3u);  // m distinct values
  }
  EXPECT_TRUE(OpsOf<ShareDelta::DeleteSignature>(d).empty());
  // Kept events are those of waiting tuples, inside their records.
  EXPECT_TRUE(OpsOf<ShareDelta::PutEvent>(d).empty());
  EXPECT_EQ(WaitingEventsOf(d).size(), p.buffered());
  EXPECT_EQ(OpsOf<ShareDelta::PutWaiting>(d).size(), s.waiting);
  const auto* dict = std::get_if<ShareDelta::PutMeta>(&d.ops.back());
  ASSERT_NE(dict, nullptr);
  EXPECT_EQ(dict->name, kDictionaryMeta);
  EXPECT_EQ(p.state().signatures(), signatures.size());
}

// A republished vehicle keeps its signature. Its stored last_release is
// refreshed only once it is 1/64 of the horizon old (here 1440 / 64 = 22
// epochs), not in every release: the next release writes no signature of a
// known vehicle, a release 22 epochs after the first refreshes them.
TEST(ReleaseShareTest, LaterReleaseKeepsTheStoredSignatures) {
  config::Config c = ShareConfig();
  c.privacy.signature_retention_days = 1;  // 1440 epochs of a minute
  Partition p(c);
  const ComputedShare first = p.Release(kEpoch, Vehicles(0, 40, kEpoch, 11));
  std::map<std::string, engine::Signature> stored;
  for (const auto& put : OpsOf<ShareDelta::PutSignature>(first.delta)) stored[put.vehicle] = put.signature.values;
  ASSERT_FALSE(stored.empty());

  const ComputedShare second = p.Release(kEpoch + 1, Vehicles(0, 40, kEpoch + 1, 12));
  ASSERT_GT(second.published_events, 0u);
  for (const auto& put : OpsOf<ShareDelta::PutSignature>(second.delta)) {
    EXPECT_EQ(stored.count(put.vehicle), 0u) << "a known vehicle's signature was rewritten one epoch later";
    EXPECT_EQ(put.signature.first_release, kEpoch + 1);
  }

  const int64_t later = kEpoch + 22;
  const ComputedShare third = p.Release(later, Vehicles(0, 40, later, 12));
  size_t refreshed = 0;
  for (const auto& put : OpsOf<ShareDelta::PutSignature>(third.delta)) {
    auto it = stored.find(put.vehicle);
    if (it == stored.end()) continue;
    // Republished under the signature it had: same values, first release
    // kept, last release moved on.
    ++refreshed;
    EXPECT_EQ(put.signature.values, it->second);
    EXPECT_EQ(put.signature.first_release, kEpoch);
    EXPECT_EQ(put.signature.last_release, later);
  }
  EXPECT_GT(refreshed, stored.size() / 2);
}

// Three vehicles with one and the same value can never form a group of
// three distinct values: they wait, with their events kept in their waiting
// records, until max_delay_epochs have passed, then they are suppressed and
// their records deleted; none of them gets a signature. Their events are
// never in the events family: no event is put or deleted one by one.
TEST(ReleaseShareTest, VehicleThatCannotBeGroupedWaitsThenIsSuppressed) {
  config::Config c = ShareConfig();
  c.privacy.max_delay_epochs = 2;
  Partition p(c);
  const std::vector<ingest::BufferedEvent> events = Vehicles(0, 3, kEpoch, 5, /*artists=*/1);
  ComputedShare s = p.Release(kEpoch, events);
  EXPECT_EQ(s.published_events, 0u);
  EXPECT_EQ(s.waiting, 3u);
  EXPECT_EQ(OpsOf<ShareDelta::PutWaiting>(s.delta).size(), 3u);
  EXPECT_TRUE(OpsOf<ShareDelta::PutEvent>(s.delta).empty());
  EXPECT_EQ(WaitingEventsOf(s.delta).size(), events.size());
  EXPECT_TRUE(OpsOf<ShareDelta::PutSignature>(s.delta).empty());
  EXPECT_EQ(p.state().waiting(), 3u);

  uint64_t suppressed = 0, waiting = 3;
  size_t single_event_ops = 0, dropped = 0;
  for (int64_t e = kEpoch + 1; waiting > 0 && e < kEpoch + 5; ++e) {
    ComputedShare next = p.Release(e, {});
    suppressed += next.suppressed_events;
    single_event_ops +=
        OpsOf<ShareDelta::DeleteEvent>(next.delta).size() + OpsOf<ShareDelta::PutEvent>(next.delta).size();
    EXPECT_TRUE(OpsOf<ShareDelta::PutSignature>(next.delta).empty());
    // A record whose tuple still waits is already what the share would
    // write: it is left alone, and only the records of tuples that leave
    // are deleted.
    EXPECT_TRUE(OpsOf<ShareDelta::PutWaiting>(next.delta).empty());
    EXPECT_EQ(OpsOf<ShareDelta::DeleteWaiting>(next.delta).size(), waiting - next.waiting);
    EXPECT_EQ(p.state().waiting(), next.waiting);
    dropped += OpsOf<ShareDelta::DeleteWaiting>(next.delta).size();
    waiting = next.waiting;
  }
  EXPECT_EQ(waiting, 0u);
  EXPECT_EQ(suppressed, events.size());
  EXPECT_EQ(dropped, 3u);
  EXPECT_EQ(single_event_ops, 0u);
  EXPECT_EQ(p.state().event_keys(), 0u);
  EXPECT_EQ(p.state().waiting(), 0u);
  EXPECT_EQ(p.buffered(), 0u);
}

// A waiting tuple's events are stored (in state and, through the apply
// batch, in the changelog) without the raw sensitive field: the tuple holds
// its value once, as a dictionary id. Everything else of an event is kept.
// The payloads here are as ingestion leaves them: coarsened, without the
// sensitive field.
TEST(ReleaseShareTest, EventsOfAWaitingTupleAreStoredWithoutTheSensitiveValue) {
  const std::string value = "Paul Kalkbrenner";
  std::vector<ingest::BufferedEvent> events;
  for (uint32_t v = 0; v < 3; ++v) {
    for (int64_t i = 0; i < 2; ++i) {
      events.push_back(release_test::Event(v, kEpoch * kEpochMs + 1000 * (2 * v + i), "Diesel", "4", value,
                                           "{\"source\":\"bt\",\"speed\":50}"));
    }
  }
  Partition p(ShareConfig());
  const ComputedShare s = p.Release(kEpoch, events);  // one value among three: they wait
  ASSERT_EQ(s.waiting, 3u);

  const std::vector<state::WaitingEvent> puts = WaitingEventsOf(s.delta);
  ASSERT_EQ(puts.size(), events.size());
  for (const state::WaitingEvent& put : puts) {
    EXPECT_EQ(put.encoded.find(value), std::string::npos) << "a stored event holds the sensitive value";
    ingest::BufferedEvent stored;
    ASSERT_TRUE(ingest::DecodeBufferedEvent(put.encoded, &stored));
    ASSERT_EQ(stored.extras.size(), 1u);
    EXPECT_FALSE(stored.extras[0]);
    EXPECT_EQ(stored.ts_ms, put.ts_ms);
    EXPECT_EQ(stored.event, "media_track_changed");
    EXPECT_EQ(stored.qi_values, (std::vector<std::string>{"Diesel", "4"}));
    EXPECT_EQ(stored.payload_json, "{\"source\":\"bt\",\"speed\":50}");
  }
  // The value is kept once per tuple, by id, in the partition's dictionary.
  release::SensitiveDictionary dict;
  ASSERT_TRUE(dict.DecodeState(*p.state().GetMeta(kPartition, kDictionaryMeta)));
  const auto waiting = OpsOf<ShareDelta::PutWaiting>(s.delta);
  ASSERT_EQ(waiting.size(), 3u);
  for (const ShareDelta::PutWaiting& w : waiting) EXPECT_EQ(dict.Value(w.waiting.tuple.sensitive), value);
}

// Every event is published or suppressed exactly once although the
// instance restarts twice while tuples wait, each time with only what state
// keeps: a waiting tuple's record holds all of its events, those of its
// first epoch and those it was handed again from the buffer.
TEST(ReleaseShareTest, WaitingTuplesCarryAllTheirEventsThroughRestarts) {
  config::Config c = ShareConfig();
  c.privacy.max_delay_epochs = 3;
  Partition p(c);
  uint64_t handed = 0, done = 0;
  bool waited_across_restart = false;
  for (int64_t e = kEpoch; e < kEpoch + 8; ++e) {
    // A trio of a new value per epoch: two epochs' trios wait, a third's
    // lets groups of three values form.
    std::vector<ingest::BufferedEvent> events;
    if (e < kEpoch + 5) events = Trio(3 * static_cast<uint32_t>(e - kEpoch), e, "value " + std::to_string(e));
    handed += events.size();
    const ComputedShare s = p.Release(e, events);
    done += s.published_events + s.suppressed_events;
    if (e == kEpoch + 1 || e == kEpoch + 3) {
      waited_across_restart = waited_across_restart || p.buffered() > 0;
      p.RestartFromState();
    }
  }
  EXPECT_TRUE(waited_across_restart) << "no tuple waited across a restart: the test shows nothing";
  EXPECT_GT(done, 0u);
  EXPECT_EQ(p.buffered(), 0u);
  EXPECT_EQ(p.state().waiting(), 0u);
  EXPECT_EQ(done, handed);
}

// A store written before waiting records carried their events holds them
// in the events family. The first share over it moves them: a tombstone for
// every older event it is handed, consumed or still waiting, and the still
// waiting ones inside their records; after it the family holds none, and
// later shares tombstone nothing one by one.
TEST(ReleaseShareTest, EventsOfAStoreWrittenBeforeRecordsCarriedThemLeaveTheEventsFamily) {
  config::Config c = ShareConfig();
  c.privacy.max_delay_epochs = 3;
  Partition p(c);
  const std::vector<ingest::BufferedEvent> first = Trio(0, kEpoch, "a");
  p.Release(kEpoch, first);
  ASSERT_EQ(p.buffered(), first.size());
  const size_t moved = p.state().MoveWaitingEventsToTheEventsFamily(kPartition);
  ASSERT_EQ(moved, first.size());

  const ComputedShare next = p.Release(kEpoch + 1, Trio(3, kEpoch + 1, "b"));
  ASSERT_EQ(next.waiting, 6u);
  EXPECT_EQ(OpsOf<ShareDelta::DeleteEvent>(next.delta).size(), moved);
  EXPECT_TRUE(OpsOf<ShareDelta::PutEvent>(next.delta).empty());
  EXPECT_EQ(p.state().event_keys(), 0u);
  EXPECT_EQ(p.state().WaitingEvents(kPartition).size(), 2 * first.size());
  EXPECT_EQ(p.buffered(), 2 * first.size());

  const ComputedShare later = p.Release(kEpoch + 2, Trio(6, kEpoch + 2, "c"));
  EXPECT_GT(later.published_events, 0u);
  EXPECT_TRUE(OpsOf<ShareDelta::DeleteEvent>(later.delta).empty());
  EXPECT_TRUE(OpsOf<ShareDelta::PutEvent>(later.delta).empty());
}

// Older events are handed to the waiting tuple of their vehicle, each one to
// its own; older events of a vehicle with no waiting tuple (which apply
// never leaves) are counted as suppressed, not kept.
TEST(ReleaseShareTest, OlderEventsGoToTheirVehiclesWaitingTupleAndOrphansAreSuppressed) {
  config::Config c = ShareConfig();
  c.privacy.max_delay_epochs = 3;
  Partition p(c);
  const std::vector<ingest::BufferedEvent> first = Trio(0, kEpoch, "a");
  ASSERT_EQ(p.Release(kEpoch, first).waiting, 3u);
  const std::vector<ingest::BufferedEvent> orphans = Trio(10, kEpoch, "z");  // late: their epoch is released
  p.Add(orphans);

  const ComputedShare next = p.Release(kEpoch + 1, Trio(3, kEpoch + 1, "b"));
  ASSERT_EQ(next.waiting, 6u);
  EXPECT_EQ(next.suppressed_events, orphans.size());
  EXPECT_EQ(next.published_events, 0u);
  EXPECT_EQ(p.buffered(), 12u);

  // A third value lets all nine tuples publish, each with its own events.
  const ComputedShare last = p.Release(kEpoch + 2, Trio(6, kEpoch + 2, "c"));
  EXPECT_EQ(last.published_events, 18u);
  EXPECT_EQ(last.suppressed_events, 0u);
  EXPECT_EQ(p.buffered(), 0u);
  EXPECT_EQ(p.state().waiting(), 0u);
}

// A tuple whose events exceed what one record may carry keeps them in the
// events family, as before records carried events: one put per event, a
// record without events, tombstones (and puts again) while it waits, and
// nothing left once it is suppressed.
TEST(ReleaseShareTest, EventsTooLargeForOneRecordStayInTheEventsFamily) {
  config::Config c = ShareConfig();
  c.privacy.max_delay_epochs = 1;
  Partition p(c);
  const std::string big = "{\"blob\":\"" + std::string(state::kMaxWaitingEventBytes / 2, 'x') + "\"}";
  std::vector<ingest::BufferedEvent> events;
  for (uint32_t v = 0; v < 3; ++v) {
    const size_t n = v == 0 ? 3 : 1;  // vehicle 0: more than one record may carry
    for (size_t i = 0; i < n; ++i) {
      events.push_back(release_test::Event(v, kEpoch * kEpochMs + 1000 * static_cast<int64_t>(3 * v + i), "Diesel", "4",
                                           "one value", big));
    }
  }
  const ComputedShare s = p.Release(kEpoch, events);
  ASSERT_EQ(s.waiting, 3u);
  EXPECT_EQ(OpsOf<ShareDelta::PutEvent>(s.delta).size(), 3u);
  EXPECT_EQ(WaitingEventsOf(s.delta).size(), 2u);
  EXPECT_EQ(p.state().event_keys(), 3u);

  uint64_t suppressed = 0;
  for (int64_t e = kEpoch + 1; e < kEpoch + 4 && p.buffered() > 0; ++e) {
    const ComputedShare next = p.Release(e, {});
    suppressed += next.suppressed_events;
    EXPECT_EQ(OpsOf<ShareDelta::DeleteEvent>(next.delta).size(), events.size()) << "every older event is tombstoned";
  }
  EXPECT_EQ(suppressed, events.size());
  EXPECT_EQ(p.state().event_keys(), 0u);
  EXPECT_EQ(p.state().waiting(), 0u);
}

// Signatures of vehicles unpublished for longer than the retention horizon
// are purged (every 64th release), before the release's own puts. A stored
// last_release may lag the true one by up to 21 epochs (refreshed every
// 1440 / 64 = 22), so the purge waits horizon + 22 epochs: never earlier
// than the horizon after the true last publication.
TEST(ReleaseShareTest, SignaturesPastTheRetentionHorizonArePurged) {
  config::Config c = ShareConfig();
  c.privacy.signature_retention_days = 1;  // 1440 epochs of a minute
  Partition p(c);
  const int64_t epoch = 64 * 200;
  const std::string old_vehicle(32, 'o'), recent_vehicle(32, 'r');
  p.state().PutSignature(kPartition, old_vehicle, state::StoredSignature{{0, 1, 2}, 1, epoch - 1440 - 22 - 1});
  p.state().PutSignature(kPartition, recent_vehicle, state::StoredSignature{{0, 1, 2}, 1, epoch - 1440 - 22});
  const ComputedShare s = p.Release(epoch, Vehicles(0, 40, epoch, 3));
  const auto deletes = OpsOf<ShareDelta::DeleteSignature>(s.delta);
  ASSERT_EQ(deletes.size(), 1u);
  EXPECT_EQ(deletes[0].vehicle, old_vehicle);
  EXPECT_EQ(p.state().GetSignatures(kPartition, {old_vehicle, recent_vehicle})[0], std::nullopt);

  // Not a purge release: nothing is deleted, however old.
  p.state().PutSignature(kPartition, old_vehicle, state::StoredSignature{{0, 1, 2}, 1, 0});
  const ComputedShare next = p.Release(epoch + 1, Vehicles(0, 40, epoch + 1, 4));
  EXPECT_TRUE(OpsOf<ShareDelta::DeleteSignature>(next.delta).empty());
}

// privacy-model.md section 3: a signature is kept for the horizon counted
// from the vehicle's last publication, and a vehicle gets a new one only
// after a gap of more than the horizon between its publications. H = 1440
// epochs (1 day of minutes). Vehicles 0-19 are published every 640 epochs,
// 20-29 at the first two releases only, 30-39 at the first only, then
// 30-39 come back. Every signature the shares write or delete is checked
// against the gap since the vehicle's last publication.
TEST(ReleaseShareTest, SignatureIsRenewedOnlyAfterAGapLongerThanTheHorizon) {
  config::Config c = ShareConfig();
  c.privacy.signature_retention_days = 1;
  const int64_t horizon = 1440;
  Partition p(c);
  struct Seen {
    engine::Signature values;
    int64_t last = 0;
  };
  std::map<std::string, Seen> seen;
  auto release = [&](int64_t epoch, std::vector<ingest::BufferedEvent> events) -> ComputedShare {
    ComputedShare s = p.Release(epoch, events);
    for (const auto& del : OpsOf<ShareDelta::DeleteSignature>(s.delta)) {
      EXPECT_TRUE(seen.count(del.vehicle));
      EXPECT_GT(epoch - seen[del.vehicle].last, horizon) << "signature forgotten inside the horizon at " << epoch;
    }
    for (const auto& put : OpsOf<ShareDelta::PutSignature>(s.delta)) {
      auto it = seen.find(put.vehicle);
      if (put.signature.first_release == epoch && it != seen.end()) {
        EXPECT_GT(epoch - it->second.last, horizon) << "new signature inside the horizon at " << epoch;
      } else if (it != seen.end()) {
        EXPECT_EQ(put.signature.values, it->second.values);
      }
      // Every publication here refreshes last_release (gaps >= 22 epochs).
      EXPECT_EQ(put.signature.last_release, epoch);
      seen[put.vehicle] = Seen{put.signature.values, epoch};
    }
    return s;
  };
  auto live = [&](uint32_t first, uint32_t n) {
    std::vector<std::string> keys;
    for (uint32_t v = first; v < first + n; ++v) keys.push_back(VehicleOf(v));
    size_t count = 0;
    for (const auto& s : p.state().GetSignatures(kPartition, keys)) count += s.has_value();
    return count;
  };
  const int64_t e0 = 64 * 100;
  release(e0, Vehicles(0, 40, e0, 1));
  const size_t regular = live(0, 20), twice = live(20, 10), once = live(30, 10);
  ASSERT_GT(regular, 10u);
  ASSERT_GT(twice, 5u);
  ASSERT_GT(once, 5u);
  release(e0 + 640, Vehicles(0, 30, e0 + 640, 2));
  release(e0 + 1280, Vehicles(0, 20, e0 + 1280, 3));
  // 1408 epochs after their last publication: every signature is kept.
  release(e0 + 1408, Vehicles(0, 20, e0 + 1408, 4));
  EXPECT_EQ(live(30, 10), once);
  // 1472 (> 1440 + 22) after 30-39's only publication: theirs go. 20-29
  // were first published as long ago but last 832 epochs ago: theirs stay.
  release(e0 + 1472, Vehicles(0, 20, e0 + 1472, 5));
  EXPECT_EQ(live(30, 10), 0u);
  EXPECT_EQ(live(20, 10), twice);
  EXPECT_EQ(live(0, 20), regular);
  // 30-39 come back after the gap and are new: new signatures are allowed.
  const ComputedShare back = release(e0 + 1920, Vehicles(0, 40, e0 + 1920, 1));
  size_t renewed = 0;
  for (const auto& put : OpsOf<ShareDelta::PutSignature>(back.delta))
    renewed += put.signature.first_release == e0 + 1920;
  EXPECT_GT(renewed, 0u);
  // 0-19, published every 640 epochs, kept theirs 1920 epochs after the first.
  EXPECT_EQ(live(0, 20), regular);
}

// The windowed aggregator and `carry` (privacy-model.md section 1): the
// value moves only when another one is strictly more frequent in the last
// window_epochs epochs, and a vehicle without the field keeps its last value.
// Vehicle 0 plays X three times, then Y once, then nothing with the field;
// eight others play their own artists so that groups form.
config::Config WindowConfig() {
  config::Config c = ShareConfig();
  c.sensitive->window_epochs = 3;
  c.sensitive->missing_policy = config::MissingPolicy::kCarry;
  c.sensitive->carry_epochs = 5;
  return c;
}

std::vector<ingest::BufferedEvent> Played(int64_t epoch, const std::vector<std::optional<std::string>>& vehicle0) {
  std::vector<ingest::BufferedEvent> out = Vehicles(1, 8, epoch, 40 + static_cast<uint64_t>(epoch));
  int64_t ts = epoch * kEpochMs;
  for (const auto& artist : vehicle0) out.push_back(release_test::Event(0, ts++, "Petrol", "4", artist));
  return out;
}

std::optional<std::string> WindowValue(Partition& p, const ComputedShare& s) {
  release::SensitiveDictionary dict;
  if (!dict.DecodeState(*p.state().GetMeta(kPartition, kDictionaryMeta))) return std::nullopt;
  for (const auto& put : OpsOf<ShareDelta::PutWindow>(s.delta)) {
    if (put.vehicle != VehicleOf(0)) continue;
    if (auto last = put.window.parts().last) return dict.Value(*last);
  }
  return std::nullopt;
}

TEST(ReleaseShareTest, WindowedValueMovesOnlyWhenAnotherIsMoreFrequentAndCarriesOver) {
  Partition p(WindowConfig());
  const ComputedShare first = p.Release(kEpoch, Played(kEpoch, {"X", "X", "X"}));
  EXPECT_EQ(WindowValue(p, first), "X");
  // The epoch's mode would be Y; over the window X (3) still leads Y (1).
  const ComputedShare second = p.Release(kEpoch + 1, Played(kEpoch + 1, {"Y"}));
  EXPECT_EQ(WindowValue(p, second), "X");
  // No event with the field: X is carried, the vehicle is not ineligible.
  const ComputedShare third = p.Release(kEpoch + 2, Played(kEpoch + 2, {std::nullopt}));
  EXPECT_EQ(WindowValue(p, third), "X");
  EXPECT_EQ(third.metrics.suppressed_by_reason[static_cast<size_t>(engine::SuppressReason::kIneligible)], 0u);
  // Every active vehicle's window is stored, and nothing else.
  EXPECT_EQ(OpsOf<ShareDelta::PutWindow>(third.delta).size(), 9u);
  EXPECT_EQ(p.state().windows(), 9u);
  // Once X has left the window, three Ys make Y the value.
  p.Release(kEpoch + 3, Played(kEpoch + 3, {"Y"}));
  const ComputedShare fifth = p.Release(kEpoch + 4, Played(kEpoch + 4, {"Y", "Y"}));
  EXPECT_EQ(WindowValue(p, fifth), "Y");
}

TEST(ReleaseShareTest, WithoutCarryAVehicleWithoutTheFieldIsIneligible) {
  config::Config c = WindowConfig();
  c.sensitive->missing_policy = config::MissingPolicy::kMissingValue;
  c.sensitive->carry_epochs = 0;
  Partition p(c);
  p.Release(kEpoch, Played(kEpoch, {"X", "X", "X"}));
  // Inside the window the vehicle still has X's events; three epochs on
  // it has none, and without carry nothing is kept.
  const ComputedShare inside = p.Release(kEpoch + 1, Played(kEpoch + 1, {std::nullopt}));
  EXPECT_EQ(inside.metrics.suppressed_by_reason[static_cast<size_t>(engine::SuppressReason::kIneligible)], 0u);
  p.Release(kEpoch + 2, Played(kEpoch + 2, {}));
  const ComputedShare after = p.Release(kEpoch + 4, Played(kEpoch + 4, {std::nullopt}));
  EXPECT_EQ(after.metrics.suppressed_by_reason[static_cast<size_t>(engine::SuppressReason::kIneligible)], 1u);
}

// Without a window, carry or history the share keeps no per-vehicle state.
TEST(ReleaseShareTest, EpochValuesKeepNoWindows) {
  Partition p(ShareConfig());
  const ComputedShare s = p.Release(kEpoch, Played(kEpoch, {"X"}));
  EXPECT_TRUE(OpsOf<ShareDelta::PutWindow>(s.delta).empty());
  EXPECT_EQ(p.state().windows(), 0u);
}

// Learning: a new vehicle with fewer than learn_events events in its
// history waits (within max_delay_epochs) instead of being placed from one
// epoch; history slots then give new signatures more than m values.
TEST(ReleaseShareTest, NewVehiclesLearnBeforeTheirSignatureAndGetHistorySlots) {
  config::Config c = WindowConfig();
  c.privacy.max_delay_epochs = 3;
  c.privacy.learn_events = 4;
  c.privacy.history_slots = 3;
  c.privacy.history_min_share = 0.1;
  Partition p(c);
  // Each vehicle plays its own artist and, now and then, another one.
  auto epoch_events = [](int64_t e) {
    std::vector<ingest::BufferedEvent> out;
    for (uint32_t v = 0; v < 30; ++v) {
      int64_t ts = e * kEpochMs + v;
      const std::string own = "artist-" + std::to_string(v % 6), other = "artist-" + std::to_string((v + 1) % 6);
      out.push_back(release_test::Event(v, ts, "Petrol", std::to_string(2 + v % 8), own));
      out.push_back(release_test::Event(v, ts + 100, "Petrol", std::to_string(2 + v % 8), (e + v) % 3 ? own : other));
    }
    return out;
  };
  const ComputedShare first = p.Release(kEpoch, epoch_events(kEpoch));
  EXPECT_EQ(first.published_events, 0u) << "two events per vehicle: every new vehicle waits to learn";
  EXPECT_EQ(first.waiting, 30u);
  EXPECT_TRUE(OpsOf<ShareDelta::PutSignature>(first.delta).empty());
  const ComputedShare second = p.Release(kEpoch + 1, epoch_events(kEpoch + 1));
  ASSERT_GT(second.published_events, 0u) << "four events: learnt";
  size_t wider = 0;
  for (const auto& put : OpsOf<ShareDelta::PutSignature>(second.delta)) wider += put.signature.values.size() > 3;
  EXPECT_GT(wider, 0u) << "no new signature carries a history slot";
}

// The checker remembers the partition's earlier shares: a stored signature
// that disappears (a lost record, a bad restore; here erased behind the
// engine's back) makes its vehicle look new to the engine, which would
// publish it under a second signature. The share is refused instead. A
// checker that knows only what the share's input claims (what a fresh
// checker per share knew) passes the same share.
TEST(ReleaseShareTest, ShareOfAVehicleWhoseStoredSignatureVanishedIsRefused) {
  Partition p(ShareConfig());
  const ComputedShare first = p.Release(kEpoch, Vehicles(0, 40, kEpoch, 11));
  const auto stored = OpsOf<ShareDelta::PutSignature>(first.delta);
  ASSERT_FALSE(stored.empty());
  p.state().EraseSignature(kPartition, stored.front().vehicle);

  p.Add(Vehicles(0, 40, kEpoch + 1, 12));
  ComputedShare second = p.Compute(kEpoch + 1, 2);
  ASSERT_FALSE(second.violations.empty()) << "the share of a vehicle whose signature vanished was accepted";
  EXPECT_NE(second.violations.front().find("a published signature is missing from the input"), std::string::npos)
      << second.violations.front();
  EXPECT_TRUE(second.records.events.empty());
  EXPECT_TRUE(second.delta.ops.empty());

  p.Drop(&second);
  ComputedShare again = p.Compute(kEpoch + 1, 2);
  EXPECT_FALSE(again.violations.empty()) << "still refused when computed again";
  p.Drop(&again);

  // A checker that starts from the damaged state (as a fresh checker per
  // share did, or one resumed after a restart) has no memory of the vehicle
  // and passes the same share: the refusal rests on the memory.
  PartitionChecker fresh(p.schema());
  ComputedShare unseen = p.Compute(kEpoch + 1, 2, &fresh);
  EXPECT_TRUE(unseen.violations.empty()) << unseen.violations.front();
  p.Drop(&unseen);
}

// State names sensitive values by dictionary id. A stored signature with an
// id beyond the partition's dictionary (damaged state) stops the share with
// the partition named; before, the group record read past the dictionary.
TEST(ReleaseShareTest, StoredSignatureBeyondTheDictionaryStopsTheShareWithAClearError) {
  Partition p(ShareConfig());
  const ComputedShare first = p.Release(kEpoch, Vehicles(0, 40, kEpoch, 11));
  const auto stored = OpsOf<ShareDelta::PutSignature>(first.delta);
  ASSERT_FALSE(stored.empty());
  state::StoredSignature damaged = stored.front().signature;
  damaged.values.back() = 1000000;
  p.state().PutSignature(kPartition, stored.front().vehicle, damaged);

  p.Add(Vehicles(0, 40, kEpoch + 1, 12));
  try {
    p.Compute(kEpoch + 1, 2);
    FAIL() << "a share over a signature beyond the dictionary was computed";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("stored signature refers to sensitive value id 1000000"), std::string::npos) << what;
    EXPECT_NE(what.find("partition " + std::to_string(kPartition)), std::string::npos) << what;
  }
}

// The same for a stored value window: its last value beyond the dictionary
// stops the share before the window is advanced.
TEST(ReleaseShareTest, StoredWindowBeyondTheDictionaryStopsTheShareWithAClearError) {
  Partition p(WindowConfig());
  const ComputedShare first = p.Release(kEpoch, Played(kEpoch, {"X"}));
  const auto stored = OpsOf<ShareDelta::PutWindow>(first.delta);
  ASSERT_FALSE(stored.empty());
  engine::ValueWindow::Parts parts = stored.front().window.parts();
  parts.last = 1000000;
  ShareDelta damage;
  damage.partition = kPartition;
  damage.Add(ShareDelta::PutWindow{stored.front().vehicle, engine::ValueWindow::FromParts(parts)});
  p.state().Apply(damage);

  p.Add(Played(kEpoch + 1, {"X"}));
  try {
    p.Compute(kEpoch + 1, 2);
    FAIL() << "a share over a value window beyond the dictionary was computed";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("a value window refers to a sensitive value id beyond the partition's dictionary"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("partition " + std::to_string(kPartition)), std::string::npos) << what;
    EXPECT_NE(what.find("(damaged state)"), std::string::npos) << what;
  }
}

// Checking a share changes the checker only once the share is applied: a
// share computed and dropped (precomputed before its close, then an event
// arrived) leaves no trace, and its recomputation with another seed (other
// groups, other new signatures) passes.
TEST(ReleaseShareTest, DroppedShareLeavesTheCheckerAsItWas) {
  Partition p(ShareConfig());
  p.Release(kEpoch, Vehicles(0, 20, kEpoch, 11));
  p.Add(Vehicles(0, 40, kEpoch + 1, 12));
  ComputedShare dropped = p.Compute(kEpoch + 1, 2);
  ASSERT_TRUE(dropped.violations.empty()) << dropped.violations.front();
  ASSERT_FALSE(OpsOf<ShareDelta::PutSignature>(dropped.delta).empty()) << "new vehicles got signatures";
  p.Drop(&dropped);
  ComputedShare used = p.Compute(kEpoch + 1, 3);
  EXPECT_TRUE(used.violations.empty()) << used.violations.front();
  p.Apply(&used);
}

config::Config DpWindowConfig() {
  config::Config c = ShareConfig();
  config::DpConfig& dp = c.dp;
  dp.enabled = true;
  dp.epsilon_per_release = 100;  // noise scale 1/100: the counts read as exact
  dp.budget_epsilon = 1000;
  dp.budget_period_days = 1;
  dp.max_per_cell = 1;
  dp.max_cells = 4;
  dp.event_names = {"media_track_changed"};
  dp.queries = {{"vehicles_by_engine", config::DpCount::kVehicles, {"qi:engine"}, {}}};
  dp.window_seconds = 2 * kEpochMs / 1000;
  return c;
}

int64_t VehiclesCounted(const std::vector<std::string>& records) {
  static const std::regex kValue(R"re("query":"vehicles_by_engine".*"kind":"count","value":(-?\d+))re");
  int64_t total = 0;
  for (const std::string& r : records) {
    std::smatch m;
    if (r.find("discrete_laplace") != std::string::npos && std::regex_search(r, m, kValue)) {
      total += std::stoll(m[1].str());
    }
  }
  return total;
}

// A DP window of two epochs: the first share publishes nothing and leaves
// the open window in its delta; the second reads it back from state and
// publishes the window's counts over both epochs, after its ledger charge
// was committed durably.
TEST(ReleaseShareTest, DpWindowStateIsCarriedFromOneShareToTheNext) {
  Partition p(DpWindowConfig());
  const ComputedShare first = p.Release(kEpoch, Vehicles(0, 20, kEpoch, 7));
  EXPECT_TRUE(first.dp.records.empty());
  bool window_kept = false;
  for (const auto& put : OpsOf<ShareDelta::PutMeta>(first.delta)) {
    if (put.name == "dp_window") window_kept = !put.value.empty();
  }
  EXPECT_TRUE(window_kept);
  EXPECT_EQ(p.state().durable_commits(), 0);  // no charge before the window closes

  const ComputedShare second = p.Release(kEpoch + 1, Vehicles(20, 20, kEpoch + 1, 8));
  ASSERT_FALSE(second.dp.records.empty());
  EXPECT_GE(p.state().durable_commits(), 1);  // the window's ledger charge
  EXPECT_TRUE(p.state().GetMeta(kPartition, "dp_ledger").has_value());
  // 40 distinct vehicles over the window; the second epoch alone has 20.
  EXPECT_NEAR(static_cast<double>(VehiclesCounted(second.dp.records)), 40.0, 4.0);
  EXPECT_EQ(p.state().GetMeta(kPartition, "dp_window"), std::optional<std::string>(""));
}

// The DP counts of a share read the epoch's events grouped by the share's
// tuples: they must count exactly the events, each once, as a publisher
// given the flat events does. Windows of one epoch with noise of scale
// 1/100 (zero but with probability 1e-43): the records of both are the same
// whatever their random streams.
TEST(ReleaseShareTest, DpCountsOverTheTuplesEventsAreTheFlatEventsCounts) {
  config::Config c = DpWindowConfig();
  c.dp.window_seconds = kEpochMs / 1000;
  c.dp.queries.push_back({"events_by_name", config::DpCount::kEvents, {"event"}, {}});
  c.dp.queries.push_back({"trips_by_engine", config::DpCount::kTrips, {"qi:engine"}, {}});
  Partition p(c);
  MemoryShareState flat_state;
  prometheus::Registry registry;
  DpPublisher flat(c, "share-test-key", &flat_state, registry);
  const release::EpochClock clock(c.privacy.epoch);
  for (int64_t epoch = kEpoch; epoch < kEpoch + 2; ++epoch) {
    const std::vector<ingest::BufferedEvent> events = Vehicles(0, 30, epoch, static_cast<uint64_t>(epoch));
    const ComputedShare share = p.Release(epoch, events);
    release::SeedStream random(SeedOf(9));
    const DpPublisher::Result want =
        flat.Compute(kPartition, epoch, clock.EpochStart(epoch), clock.EpochEnd(epoch), events, random);
    ASSERT_FALSE(want.records.empty());
    EXPECT_EQ(share.dp.records, want.records);
    flat_state.Apply([&] {
      ShareDelta d;
      d.partition = kPartition;
      flat.Apply(want, &d);
      return d;
    }());
  }
}

}  // namespace
}  // namespace vanon::service
