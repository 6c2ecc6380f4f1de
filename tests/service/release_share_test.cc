// The release share as a function of its events and of the partition's
// state, over an in-memory ShareState: no RocksDB, no Kafka. Each test
// asserts on the state delta a share produces, and carries it into the
// next share as the runner's apply would.

#include <gtest/gtest.h>
#include <prometheus/registry.h>

#include <map>
#include <memory>
#include <regex>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "memory_share_state.h"
#include "release_fixture.h"
#include "release_share.h"
#include "vanon/release/epoch_clock.h"
#include "vanon/release/event_buffer.h"
#include "vanon/release/payload_transformer.h"
#include "vanon/release/schema_from_config.h"
#include "vanon/service/dp_publisher.h"

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
                        checker != nullptr ? checker : &checker_);
  }
  const engine::Schema& schema() const { return schema_; }
  // A share not applied (a precomputed one dropped, a withheld batch): its
  // events go back to the buffer, and nothing else of it remains.
  void Drop(ComputedShare* share) { ReturnEvents(share, &buffer_); }
  void Apply(ComputedShare* share) {
    state_.Apply(share->delta);
    checker_.checker.Accept(std::move(share->verdict));
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
  PartitionChecker checker_{schema_};
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
  // Kept events are those of waiting tuples, put back after the range.
  EXPECT_EQ(OpsOf<ShareDelta::PutEvent>(d).size(), p.buffered());
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
// three distinct values: they wait, with their events kept, until
// max_delay_epochs have passed, then they are suppressed and their events
// deleted; none of them gets a signature.
TEST(ReleaseShareTest, VehicleThatCannotBeGroupedWaitsThenIsSuppressed) {
  config::Config c = ShareConfig();
  c.privacy.max_delay_epochs = 1;
  Partition p(c);
  const std::vector<ingest::BufferedEvent> events = Vehicles(0, 3, kEpoch, 5, /*artists=*/1);
  ComputedShare s = p.Release(kEpoch, events);
  EXPECT_EQ(s.published_events, 0u);
  EXPECT_EQ(s.waiting, 3u);
  EXPECT_EQ(OpsOf<ShareDelta::PutWaiting>(s.delta).size(), 3u);
  EXPECT_EQ(OpsOf<ShareDelta::PutEvent>(s.delta).size(), events.size());
  EXPECT_TRUE(OpsOf<ShareDelta::PutSignature>(s.delta).empty());
  EXPECT_EQ(p.state().waiting(), 3u);

  uint64_t suppressed = 0, waiting = 3;
  size_t deleted = 0;
  for (int64_t e = kEpoch + 1; waiting > 0 && e < kEpoch + 5; ++e) {
    ComputedShare next = p.Release(e, {});
    suppressed += next.suppressed_events;
    waiting = next.waiting;
    deleted += OpsOf<ShareDelta::DeleteEvent>(next.delta).size();
    EXPECT_TRUE(OpsOf<ShareDelta::PutSignature>(next.delta).empty());
    EXPECT_EQ(OpsOf<ShareDelta::DeleteWaiting>(next.delta).size(), 3u);  // rewritten or dropped
  }
  EXPECT_EQ(waiting, 0u);
  EXPECT_EQ(suppressed, events.size());
  EXPECT_EQ(deleted, events.size());  // older events go one by one
  EXPECT_EQ(p.state().waiting(), 0u);
  EXPECT_EQ(p.buffered(), 0u);
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

}  // namespace
}  // namespace vanon::service
