// What vanon keeps on Kafka is as private as what it publishes
// (docs/privacy-model.md, "What vanon keeps"). `vanon run` with the state
// changelog and global DP counts on, then every topic it wrote is read back
// as raw bytes, as anyone with read access to the cluster could:
// - no internal-topic record (changelog, DP partials) holds a sensitive value
//   text, a raw VIN, a trip id or an HMAC of a VIN in clear, and every value
//   is sealed: it opens with the key ring and its plaintext is nowhere in the
//   raw bytes (which also covers exact DP counts and signatures);
// - the late topic and the DLQ pair no HMAC with a raw message: their keys
//   are the input's own keys.
// And a partition restored with the wrong key stops the service with exit 1
// naming the key id, with nothing of the partition applied.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "fleet_feed.h"
#include "instance_phase.h"
#include "lifecycle_support.h"
#include "test_support.h"
#include "topic_reader.h"
#include "vanon/ingest/keyed_hasher.h"
#include "vanon/seal/record_sealer.h"
#include "vanon/state/state_store.h"

namespace vanon::service {
namespace {

using testing::Subprocess;
using testing::TempDir;

constexpr const char* kHmacKey = "internal-topics-test-hmac-key-0123456789";
constexpr const char* kChangelog = "vanon.state.changelog";
constexpr const char* kPartials = "vanon.dp.partials";
constexpr int kInputPartitions = 2;

std::unique_ptr<Subprocess> StartKafka(std::string* bootstrap) {
  return testing::StartServiceKafka(kInputPartitions, 2, bootstrap, {std::string(kPartials) + ":1"});
}

std::unique_ptr<Subprocess> StartVanon(const std::string& bootstrap, const std::string& state, int port,
                                       const std::string& keys_env, bool global_dp = true) {
  // One static member: a restart takes over at once.
  testing::RunOptions o{bootstrap, state, port, kHmacKey, "what-vanon-keeps", keys_env, {}, {}};
  o.sets = {"privacy.late_events=topic", "dp.window_seconds=4", "dp.time_bucket_seconds=2", "dp.epsilon_per_release=1",
            "dp.budget.epsilon=100000",
            std::string(global_dp ? "dp.aggregation.topic=" : "dp.window_seconds=") + (global_dp ? kPartials : "4"),
            "dp.aggregation.max_wait_windows=1000",
            // The previous member's partitions move once its session expires.
            "kafka.consumer_properties.session.timeout.ms=6000"};
  return testing::StartRun(o);
}

bool Drained(int port) { return testing::ReleasedAndSettled(port, kInputPartitions, 2 * kInputPartitions); }

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Every string value of `field` in the feed's messages (trip ids, artists).
std::set<std::string> FieldValues(const std::vector<testing::TopicRecord>& input, const std::string& field) {
  const std::regex re("\"" + field + "\":\"([^\"]{4,})\"");
  std::set<std::string> out;
  for (const testing::TopicRecord& r : input) {
    for (std::sregex_iterator it(r.value.begin(), r.value.end(), re), end; it != end; ++it) out.insert((*it)[1]);
  }
  return out;
}

// Counts records whose raw key or value contains any of `needles`.
size_t RecordsContaining(const std::vector<testing::TopicRecord>& records, const std::set<std::string>& needles) {
  size_t n = 0;
  for (const testing::TopicRecord& r : records) {
    for (const std::string& s : needles) {
      if (r.value.find(s) != std::string::npos || r.key.find(s) != std::string::npos) {
        ++n;
        break;
      }
    }
  }
  return n;
}

struct SealCheck {
  size_t records = 0, values = 0, sealed = 0, opened = 0, plaintext_in_clear = 0;
};

// Every non-tombstone value must be sealed, open with the ring at its place,
// and its plaintext must not be readable anywhere in the raw record.
SealCheck CheckSealed(const std::vector<testing::TopicRecord>& records, const std::string& topic) {
  seal::RecordSealer sealer(testing::TestStateKeys());
  SealCheck c;
  for (const testing::TopicRecord& r : records) {
    ++c.records;
    if (r.value.empty()) continue;
    ++c.values;
    c.sealed += !seal::RecordSealer::KeyIdOf(r.value).empty();
    seal::Opened o = sealer.Open({topic, r.partition, r.key}, r.value);
    if (o.status != seal::OpenStatus::kOk) continue;
    ++c.opened;
    // Short plaintexts (a varint, a flag) can occur by chance in random bytes.
    if (o.plaintext.size() >= 12 && r.value.find(o.plaintext) != std::string::npos) ++c.plaintext_in_clear;
  }
  return c;
}

TEST(WhatVanonKeeps, HoldNothingInClearAndLateAndDlqPairNoHmacWithAVin) {
  std::string bootstrap;
  auto kafka = StartKafka(&bootstrap);
  ASSERT_FALSE(bootstrap.empty());
  TempDir state;
  const int port = testing::FreePort();
  // 8 s of event time, a minute old.
  const testing::FeedOptions fo{
      .messages = 8000, .vehicles = 120, .invalid_fraction = 0.02, .rate = 1000, .start_ms = NowMs() - 60000};
  testing::FeedSummary sent = testing::ProduceFleet(bootstrap, "vehicle.events.raw", fo);

  auto vanon = StartVanon(bootstrap, state.path(), port, testing::kStateKeysEnv);
  ASSERT_TRUE(testing::WaitFor(120, [&] { return Drained(port); })) << vanon->Output();
  // The same stretch of event time again: its epochs are released, so these
  // events are late and go to the late topic.
  testing::FeedOptions late = fo;
  late.messages = 400;
  late.seed = 11;
  late.invalid_fraction = 0;
  testing::ProduceFleet(bootstrap, "vehicle.events.raw", late);
  ASSERT_TRUE(testing::WaitFor(60, [&] {
    return testing::ScrapeMetric(port, "vanon_events_late_total{route=\"topic\"}") > 0;
  })) << vanon->Output();
  ASSERT_NO_FATAL_FAILURE(testing::FinishPhase(*vanon, 60, [&] { return Drained(port); }));

  const std::vector<testing::TopicRecord> input = testing::ReadTopic(bootstrap, "vehicle.events.raw");
  ASSERT_EQ(testing::SumLowWatermarks(bootstrap, "vehicle.events.raw", kInputPartitions), 0);
  std::set<std::string> vins;
  for (const testing::TopicRecord& r : input) {
    if (r.key.size() == 17) vins.insert(r.key);
  }
  ingest::KeyedHasher hasher(kHmacKey);
  std::set<std::string> hmacs;
  for (const std::string& v : vins) hmacs.insert(hasher.HashHex(v));
  const std::set<std::string> trips = FieldValues(input, "trip_id");
  const std::set<std::string> artists = FieldValues(input, "artist");
  ASSERT_GT(vins.size(), 50u);
  ASSERT_GT(trips.size(), 50u);
  ASSERT_GT(artists.size(), 10u);

  for (const char* topic : {kChangelog, kPartials}) {
    const std::vector<testing::TopicRecord> records = testing::ReadTopic(bootstrap, topic);
    ASSERT_GT(records.size(), 0u) << topic;
    EXPECT_EQ(RecordsContaining(records, vins), 0u) << "raw VINs in " << topic;
    EXPECT_EQ(RecordsContaining(records, trips), 0u) << "trip ids in " << topic;
    EXPECT_EQ(RecordsContaining(records, artists), 0u) << "sensitive values in " << topic;
    const SealCheck c = CheckSealed(records, topic);
    EXPECT_GT(c.values, 0u) << topic;
    EXPECT_EQ(c.sealed, c.values) << topic << ": values not sealed";
    EXPECT_EQ(c.opened, c.values) << topic << ": values that do not open with the key ring";
    EXPECT_EQ(c.plaintext_in_clear, 0u) << topic << ": plaintexts readable in the raw records";
  }
  // Changelog keys are HMACs and codes (the HMACs are what the key is for);
  // the partials' keys are window/partition codes.
  EXPECT_EQ(RecordsContaining(testing::ReadTopic(bootstrap, kPartials), hmacs), 0u);

  // Late and DLQ records: as sensitive as the input, keyed as it was; never
  // a record that pairs an HMAC with the raw message.
  const std::vector<testing::TopicRecord> late_records = testing::ReadTopic(bootstrap, "vehicle.events.late");
  const std::vector<testing::TopicRecord> dlq = testing::ReadTopic(bootstrap, "vehicle.events.dlq");
  EXPECT_GT(late_records.size(), 0u);
  EXPECT_GT(dlq.size(), 0u);
  EXPECT_EQ(sent.invalid, dlq.size());
  for (const auto* records : {&late_records, &dlq}) {
    EXPECT_EQ(RecordsContaining(*records, hmacs), 0u) << "a late or DLQ record holds a VIN's HMAC";
  }
  size_t late_keyed_by_vin = 0;
  for (const testing::TopicRecord& r : late_records) late_keyed_by_vin += vins.count(r.key);
  EXPECT_EQ(late_keyed_by_vin, late_records.size()) << "late records are keyed by the input's own key";
}

// The owner before the one a test starts: 3,000 messages of 100 vehicles, a
// minute old, released until drained, then stopped; what it leaves on the
// cluster (its changelog, its DP partials) is what the next owner restores.
void FirstOwnerReleases(const std::string& bootstrap, bool global_dp) {
  testing::ProduceFleet(
      bootstrap, "vehicle.events.raw",
      {.messages = 3000, .vehicles = 100, .invalid_fraction = 0, .rate = 1000, .start_ms = NowMs() - 60000});
  TempDir first_state;
  const int port = testing::FreePort();
  auto first = StartVanon(bootstrap, first_state.path(), port, testing::kStateKeysEnv, global_dp);
  ASSERT_NO_FATAL_FAILURE(testing::FinishPhase(*first, 120, [&] { return Drained(port); }));
}

// A new owner whose key ring cannot open the changelog: exit 1, one line
// naming the key id, and nothing of the partition in its state.
TEST(WhatVanonKeeps, RestoreWithTheWrongKeyFailsClosedNamingTheKeyId) {
  std::string bootstrap;
  auto kafka = StartKafka(&bootstrap);
  ASSERT_FALSE(bootstrap.empty());
  ASSERT_NO_FATAL_FAILURE(FirstOwnerReleases(bootstrap, /*global_dp=*/true));
  const std::string wrong_bytes = std::string(testing::kTestStateKeys).substr(0, 7) + std::string(64, 'e');
  for (const std::string& ring : {wrong_bytes, "other:" + std::string(64, 'e')}) {
    TempDir state;  // a new owner: empty local state
    auto second = StartVanon(bootstrap, state.path(), testing::FreePort(), "VANON_STATE_KEYS=" + ring);
    const int rc = second->Wait(120);
    const std::string out = second->Output();
    EXPECT_EQ(rc, 1) << out;
    EXPECT_NE(out.find("key id 'test-1'"), std::string::npos) << out;
    EXPECT_EQ(out.find(std::string(64, 'e')), std::string::npos) << "key material in the log";
    auto store = state::StateStore::Open(state.path());
    for (int32_t p = 0; p < kInputPartitions; ++p) {
      size_t signatures = 0;
      store->ScanSignatures(p, [&](std::string_view, const state::StoredSignature&) {
        ++signatures;
        return true;
      });
      EXPECT_EQ(signatures, 0u) << "partition " << p << " was partly restored";
      EXPECT_FALSE(store->GetMeta(p, "changelog_offset")) << "partition " << p << " marked as checked";
    }
  }
}

// Rotation: `vanon reseal-changelog` rewrites every live record under the
// new first key; a new owner holding only the new key then restores the
// partition (the old copies, which compaction drops in time, are superseded).
// Without global DP counts: partials are read once, by offset, and are not
// rewritten; the old key stays in the ring until they are read
// (docs/operations.md, "Rotating the state key").
TEST(WhatVanonKeeps, AResealedChangelogRestoresWithTheNewKeyAlone) {
  std::string bootstrap;
  auto kafka = StartKafka(&bootstrap);
  ASSERT_FALSE(bootstrap.empty());
  ASSERT_NO_FATAL_FAILURE(FirstOwnerReleases(bootstrap, /*global_dp=*/false));
  const std::string new_key = "test-2:" + std::string(64, 'c');
  Subprocess reseal({VANON_BIN, "reseal-changelog", "--config", std::string(VANON_SOURCE_DIR) + "/config/demo.yaml",
                     "--set", "kafka.bootstrap=" + bootstrap},
                    {"VANON_STATE_KEYS=" + new_key + "," + testing::kTestStateKeys}, /*capture_stderr=*/true);
  ASSERT_EQ(reseal.Wait(120), 0) << reseal.Output();
  EXPECT_NE(reseal.Output().find("rewritten from older keys"), std::string::npos) << reseal.Output();

  TempDir state;  // a new owner with the new key only
  const int port = testing::FreePort();
  auto second = StartVanon(bootstrap, state.path(), port, "VANON_STATE_KEYS=" + new_key, /*global_dp=*/false);
  ASSERT_NO_FATAL_FAILURE(testing::FinishPhase(
      *second, 120, [&] { return Drained(port); },
      [&] {
        EXPECT_GE(testing::ScrapeMetric(port, "vanon_state_restores_total{outcome=\"restored\"}"), 1)
            << second->Output();
      }));
  // Every live record now opens with the new key alone.
  std::string error;
  seal::RecordSealer sealer(*seal::Keyring::Parse(new_key, &error));
  std::map<std::pair<int32_t, std::string>, std::string> live;
  for (const testing::TopicRecord& r : testing::ReadTopic(bootstrap, kChangelog)) live[{r.partition, r.key}] = r.value;
  size_t opened = 0, values = 0;
  for (const auto& [where, value] : live) {
    if (value.empty()) continue;
    ++values;
    opened += sealer.Open({kChangelog, where.first, where.second}, value).status == seal::OpenStatus::kOk;
  }
  EXPECT_GT(values, 0u);
  EXPECT_EQ(opened, values);
}

}  // namespace
}  // namespace vanon::service
