// Upgrading a deployment to the shipped preset (docs/config.md, "Upgrading
// from a version without presets"): a partition released for several
// epochs with the previous default (`epoch`: what a config without
// privacy.preset meant) over a RocksDB state store, then the store reopened
// as a restarted service would open it and the same partition continued
// with config/vanon.yaml as shipped (`history`). The shares are the
// service's own (ComputeShare, their deltas written with AddShareDelta);
// one engine::ReleaseChecker sees the whole sequence across the switch.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "release_fixture.h"
#include "service/share/release_share.h"
#include "service/store/store_share_state.h"
#include "service/task/partition_task.h"
#include "vanon/engine/checker.h"
#include "vanon/ingest/buffered_event.h"
#include "vanon/release/epoch_clock.h"
#include "vanon/release/event_buffer.h"
#include "vanon/release/payload_transformer.h"
#include "vanon/release/schema_from_config.h"
#include "vanon/release/sensitive_dictionary.h"
#include "vanon/state/state_store.h"

namespace vanon::service {
namespace {

constexpr int32_t kPartition = 0;
constexpr int64_t kFirst = 29'500'000;  // epochs of a minute: November 2026
constexpr int kOldReleases = 6;
constexpr int kNewReleases = 8;
constexpr uint32_t kKnown = 120;  // vehicles 0..119 from the first epoch on
constexpr uint32_t kLate = 24;    // 120..143 first seen after the upgrade
constexpr int kArtists = 8;

// config/vanon.yaml with the fixture's quasi-identifiers and without DP;
// the privacy and sensitive keys are the shipped ones.
config::Config ShippedConfig(std::vector<std::string> overrides) {
  static const std::string hierarchy = release_test::WriteEngineHierarchy();
  std::vector<std::string> all = {"quasi_identifiers=[{name: engine, hierarchy: " + hierarchy +
                                      "}, {name: seats, type: numeric, bins: {width: 2}, range: {min: 2, max: 9}}]",
                                  "dp.enabled=false"};
  all.insert(all.end(), overrides.begin(), overrides.end());
  return config::LoadConfig(VANON_SOURCE_DIR "/config/vanon.yaml", all);
}

// One epoch of vehicles [first, first + n): each plays a favourite artist,
// now and then another one, and sits out one epoch in seven.
std::vector<ingest::BufferedEvent> FleetEpoch(uint32_t first, uint32_t n, int64_t epoch) {
  static const char* kEngines[] = {"Petrol", "Diesel", "BEV", "PHEV"};
  std::mt19937_64 rng(static_cast<uint64_t>(epoch) * 1000003 + first);
  std::vector<ingest::BufferedEvent> out;
  for (uint32_t v = first; v < first + n; ++v) {
    if ((v + static_cast<uint64_t>(epoch)) % 7 == 0) continue;
    const uint32_t favourite = (v * 31) % kArtists;
    const int events = 2 + static_cast<int>(rng() % 3);
    for (int i = 0; i < events; ++i) {
      const uint32_t a = rng() % 6 == 0 ? (favourite + 1 + static_cast<uint32_t>(rng() % 2)) % kArtists : favourite;
      const int64_t ts = epoch * 60'000 + static_cast<int64_t>(rng() % 60'000);
      out.push_back(
          release_test::Event(v, ts, kEngines[v % 4], std::to_string(2 + v % 8), "artist-" + std::to_string(a)));
    }
  }
  return out;
}

// Three new vehicles that all play one artist no one else plays: they
// cannot form a group of m distinct values and wait, their events kept.
std::vector<ingest::BufferedEvent> SoloEpoch(int64_t epoch) {
  std::vector<ingest::BufferedEvent> out;
  for (uint32_t v = 500; v < 503; ++v) out.push_back(release_test::Event(v, epoch * 60'000 + v, "Diesel", "5", "solo"));
  return out;
}

std::string VehicleOf(uint32_t v) {
  const ingest::HmacToken k = release_test::Key(v);
  return std::string(reinterpret_cast<const char*>(k.data()), k.size());
}

// The service's view of the partition under one config: the store, the
// event buffer, the partition's checker, the share's context. Ingest writes
// events to the store as the consuming thread does; Release computes the
// epoch's share and applies its delta in one batch.
class Service {
 public:
  Service(config::Config c, state::StateStore* store, release::EventBuffer buffer,
          engine::ReleaseChecker* sequence_checker)
      : config_(std::move(c)),
        schema_(release::SchemaFromConfig(config_.quasi_identifiers, config_.sensitive)),
        payload_(config_.payload),
        clock_(config_.privacy.epoch),
        store_(store),
        state_(store),
        buffer_(std::move(buffer)),
        checker_(schema_) {
    ctx_.config = &config_;
    ctx_.schema = &schema_;
    ctx_.sensitive_extra = 0;
    ctx_.state = &state_;
    ctx_.payload = &payload_;
    const uint64_t horizon = static_cast<uint64_t>(config_.privacy.signature_retention_days) * 86400 /
                             static_cast<uint64_t>(config_.privacy.epoch.length_seconds);
    // The whole sequence, against every stored signature (as loadtest/utility).
    ctx_.inspect = [this, sequence_checker, horizon](const engine::ReleaseInput& in, const engine::ReleaseOutput& out) {
      engine::ReleaseInput checked = in;
      checked.params.signature_horizon = horizon;
      checked.known_signatures.clear();
      store_->ScanSignatures(kPartition, [&](std::string_view vehicle, const state::StoredSignature& s) {
        checked.known_signatures.emplace(std::string(vehicle), s.values);
        return true;
      });
      for (const std::string& v : sequence_checker->Check(checked, out)) sequence_violations_.push_back(v);
      if (on_output_) on_output_(in, out);
    };
  }

  void Ingest(const std::vector<ingest::BufferedEvent>& events) {
    state::ReleaseWrite w(*store_);
    std::string encoded;
    for (const ingest::BufferedEvent& e : events) {
      encoded.clear();
      ingest::EncodeBufferedEvent(e, &encoded);
      w.PutEvent(kPartition, e.ts_ms, next_offset_, encoded);
      buffer_.Add({e.ts_ms, next_offset_++, e});
    }
    store_->Commit(w);
  }

  ComputedShare Release(int64_t epoch) {
    release::ReleaseSeed seed{};
    seed.fill(static_cast<uint8_t>(epoch));
    ComputedShare s =
        ComputeShare(ctx_, kPartition, epoch, seed, false, buffer_.Take(clock_.EpochEnd(epoch)), &checker_);
    if (!s.violations.empty()) return s;  // not applied, as the runner refuses it
    state::ReleaseWrite w(*store_);
    AddShareDelta(s.delta, &w);
    store_->Commit(w);
    checker_.checker.Accept(std::move(s.verdict));
    for (release::KeyedEvent& e : s.remaining) buffer_.Restore(std::move(e));
    s.remaining.clear();
    return s;
  }

  const config::Config& config() const { return config_; }
  const std::vector<std::string>& sequence_violations() const { return sequence_violations_; }
  void set_next_offset(int64_t o) { next_offset_ = o; }
  int64_t next_offset() const { return next_offset_; }
  // Sees every share's engine input and output once its own check passed.
  void OnOutput(std::function<void(const engine::ReleaseInput&, const engine::ReleaseOutput&)> fn) {
    on_output_ = std::move(fn);
  }

 private:
  config::Config config_;
  engine::Schema schema_;
  release::PayloadTransformer payload_;
  release::EpochClock clock_;
  state::StateStore* store_;
  StoreShareState state_;
  release::EventBuffer buffer_;
  PartitionChecker checker_;
  ShareContext ctx_;
  int64_t next_offset_ = 0;
  std::vector<std::string> sequence_violations_;
  std::function<void(const engine::ReleaseInput&, const engine::ReleaseOutput&)> on_output_;
};

std::map<std::string, state::StoredSignature> StoredSignatures(const state::StateStore& store) {
  std::map<std::string, state::StoredSignature> out;
  store.ScanSignatures(kPartition, [&](std::string_view vehicle, const state::StoredSignature& s) {
    out.emplace(std::string(vehicle), s);
    return true;
  });
  return out;
}

size_t StoredWindows(const state::StateStore& store) {
  size_t n = 0;
  store.ScanWindows(kPartition, [&](std::string_view, const engine::ValueWindow&) { return ++n > 0; });
  return n;
}

std::vector<ShareDelta::PutSignature> SignaturePuts(const ShareDelta& d) {
  std::vector<ShareDelta::PutSignature> puts;
  for (const ShareDelta::Op& op : d.ops) {
    if (const auto* p = std::get_if<ShareDelta::PutSignature>(&op)) puts.push_back(*p);
  }
  return puts;
}

release::SensitiveDictionary Dictionary(const state::StateStore& store) {
  release::SensitiveDictionary dict;
  const std::optional<std::string> stored = store.GetMeta(kPartition, kDictionaryMeta);
  EXPECT_TRUE(stored && dict.DecodeState(*stored)) << "no dictionary in state";
  return dict;
}

// After the first release with value windows, at `epoch`: a window for
// exactly the vehicles active in it, holding that epoch's events alone, its
// value their mode (ties to the smaller id: there is no previous value).
void ExpectWindowsStartAt(const state::StateStore& store, int64_t epoch,
                          const std::vector<ingest::BufferedEvent>& events) {
  std::map<std::string, std::map<std::string, uint32_t>> counts;
  for (const ingest::BufferedEvent& ev : events) {
    const ingest::HmacToken& k = ev.vehicle_key;
    ++counts[std::string(reinterpret_cast<const char*>(k.data()), k.size())][*ev.extras[0]];
  }
  const release::SensitiveDictionary dict = Dictionary(store);
  size_t windows = 0;
  store.ScanWindows(kPartition, [&](std::string_view vehicle, const engine::ValueWindow& w) {
    ++windows;
    auto it = counts.find(std::string(vehicle));
    EXPECT_NE(it, counts.end()) << "a window for a vehicle without events in the epoch";
    if (it == counts.end()) return true;
    const engine::ValueWindow::Parts p = w.parts();
    EXPECT_EQ(p.advanced, static_cast<uint64_t>(epoch));
    EXPECT_EQ(p.epochs.size(), 1u) << "the window holds epochs from before the upgrade";
    std::map<std::string, uint32_t> seen;
    for (const auto& [at, values] : p.epochs) {
      EXPECT_EQ(at, static_cast<uint64_t>(epoch));
      for (const engine::ValueCount& c : values) seen[dict.Value(c.value)] += c.count;
    }
    EXPECT_EQ(seen, it->second);
    std::optional<engine::ValueCount> mode;
    for (const auto& [value, n] : it->second) {
      const engine::ValueCount c{*dict.Find(value), n};
      if (!mode || c.count > mode->count || (c.count == mode->count && c.value < mode->value)) mode = c;
    }
    EXPECT_EQ(p.last, mode->value);
    return true;
  });
  EXPECT_EQ(windows, counts.size());
}

class PresetUpgradeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("vanon_preset_upgrade_" + std::to_string(::getpid()) + "_" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

// Every vehicle published before the upgrade is published after it under
// the signature stored for it (same values, same first release), the
// service's checker and the sequence checker accept every share, no known
// vehicle gets a second signature, and value windows start with the first
// release after the upgrade from that epoch's events alone.
TEST_F(PresetUpgradeTest, ShippedPresetContinuesTheStateOfThePreviousDefault) {
  const config::Config old_config = ShippedConfig({"privacy.preset=epoch"});
  const config::Config new_config = ShippedConfig({});
  ASSERT_EQ(new_config.privacy.preset, config::PrivacyPreset::kHistory) << "config/vanon.yaml ships another preset";
  ASSERT_GT(new_config.sensitive->window_epochs, 1);
  ASSERT_GT(new_config.privacy.history_slots, 0);
  // The sequence checker's schema: both configs have the same QIs.
  const engine::Schema schema = release::SchemaFromConfig(old_config.quasi_identifiers, old_config.sensitive);
  engine::ReleaseChecker sequence(schema);

  // Before: the previous default, which keeps no value windows.
  std::map<std::string, state::StoredSignature> before;
  release::SensitiveDictionary dictionary_before;
  int64_t offset = 0;
  {
    std::unique_ptr<state::StateStore> store = state::StateStore::Open(dir_.string());
    Service old_service(old_config, store.get(), release::EventBuffer(60'000), &sequence);
    for (int64_t e = kFirst; e < kFirst + kOldReleases; ++e) {
      old_service.Ingest(FleetEpoch(0, kKnown, e));
      if (e == kFirst + kOldReleases - 1) old_service.Ingest(SoloEpoch(e));
      const ComputedShare s = old_service.Release(e);
      ASSERT_TRUE(s.violations.empty()) << "epoch " << e << ": " << s.violations.front();
    }
    EXPECT_TRUE(old_service.sequence_violations().empty()) << old_service.sequence_violations().front();
    before = StoredSignatures(*store);
    EXPECT_EQ(StoredWindows(*store), 0u);
    dictionary_before = Dictionary(*store);
    offset = old_service.next_offset();
    ASSERT_EQ(store->LoadWaiting(kPartition).size(), 3u) << "the solo vehicles should wait across the upgrade";
  }
  ASSERT_GT(before.size(), kKnown / 2) << "too few vehicles published before the upgrade to test anything";

  // The upgraded service opens the same store; the partition's task reads
  // its buffered events back, its checker resumes from the stored state.
  std::unique_ptr<state::StateStore> store = state::StateStore::Open(dir_.string());
  release::PayloadTransformer payload(new_config.payload);
  PartitionTask task(*store, new_config.privacy.epoch, kPartition, &payload);
  ASSERT_EQ(task.events().size(), 3u) << "the waiting vehicles' events are read back";
  Service service(new_config, store.get(), std::move(task.events()), &sequence);
  service.set_next_offset(offset);

  // What the engine published for every vehicle that had a signature.
  std::map<std::string, size_t> republished;
  std::vector<std::string> wrong;
  service.OnOutput([&](const engine::ReleaseInput& in, const engine::ReleaseOutput& out) {
    for (const engine::Group& g : out.groups) {
      for (engine::TupleRef ref : g.members) {
        const std::string& vehicle = engine::ResolveTuple(in, ref).vehicle;
        auto it = before.find(vehicle);
        if (it == before.end()) continue;
        ++republished[vehicle];
        if (g.signature != it->second.values) wrong.push_back("published under another signature");
      }
    }
    for (const auto& [vehicle, signature] : out.new_signatures) {
      if (before.count(vehicle)) wrong.push_back("a known vehicle was given a new signature");
    }
  });

  for (int i = 0; i < kNewReleases; ++i) {
    const int64_t e = kFirst + kOldReleases + i;
    std::vector<ingest::BufferedEvent> events = FleetEpoch(0, kKnown, e);
    const std::vector<ingest::BufferedEvent> late = FleetEpoch(kKnown, kLate, e);
    events.insert(events.end(), late.begin(), late.end());
    service.Ingest(events);
    const ComputedShare s = service.Release(e);
    ASSERT_TRUE(s.violations.empty()) << "epoch " << e << ": " << s.violations.front();
    for (const ShareDelta::PutSignature& put : SignaturePuts(s.delta)) {
      auto it = before.find(put.vehicle);
      if (it == before.end()) continue;
      EXPECT_EQ(put.signature.values, it->second.values) << "stored signature rewritten at epoch " << e;
      EXPECT_EQ(put.signature.first_release, it->second.first_release);
    }
    // The first release after the upgrade: windows start here.
    if (i == 0) ExpectWindowsStartAt(*store, e, events);
  }
  EXPECT_TRUE(wrong.empty()) << wrong.size() << " times, first: " << wrong.front();
  EXPECT_TRUE(service.sequence_violations().empty()) << service.sequence_violations().front();

  // Every signature stored before is stored still, unchanged; ids mean
  // the same values (the dictionary only grew).
  const std::map<std::string, state::StoredSignature> after = StoredSignatures(*store);
  for (const auto& [vehicle, s] : before) {
    auto it = after.find(vehicle);
    ASSERT_NE(it, after.end()) << "a signature stored before the upgrade is gone";
    EXPECT_EQ(it->second.values, s.values);
    EXPECT_EQ(it->second.first_release, s.first_release);
  }
  const release::SensitiveDictionary dictionary_after = Dictionary(*store);
  ASSERT_GE(dictionary_after.size(), dictionary_before.size());
  for (engine::SensitiveId id = 0; id < dictionary_before.size(); ++id) {
    EXPECT_EQ(dictionary_after.Value(id), dictionary_before.Value(id)) << "dictionary id " << id << " renumbered";
  }
  // Known vehicles go on being published (learning holds back new ones
  // only), and vehicles first seen after the upgrade get signatures too.
  EXPECT_GT(republished.size(), before.size() * 3 / 4);
  size_t late_signed = 0;
  for (uint32_t v = kKnown; v < kKnown + kLate; ++v) late_signed += after.count(VehicleOf(v));
  EXPECT_GT(late_signed, 0u);
}

}  // namespace
}  // namespace vanon::service
