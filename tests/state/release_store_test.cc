// The release loop's view of StateStore: ReleaseWrite commits, reads of
// signatures, waiting tuples and the release log, reopen, partition scope.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "temp_dir.h"
#include "vanon/state/state_store.h"

namespace vanon::state {
namespace {

// 32 raw bytes, like the HMACs the service uses, including 0x00 and 0xff.
std::string Vehicle(uint32_t n) {
  std::string v(32, '\0');
  std::mt19937 rng(n);
  for (char& c : v) c = static_cast<char>(rng() & 0xff);
  v[0] = static_cast<char>(n & 0xff);  // distinct and spread over the key space
  return v;
}

engine::WaitingTuple Waiting(const std::string& vehicle, int32_t qi0, engine::SensitiveId s, uint64_t first) {
  engine::WaitingTuple w;
  w.tuple.vehicle = vehicle;
  w.tuple.qi = {qi0, 1};
  w.tuple.sensitive = s;
  w.tuple.events = 2;
  w.first_release = first;
  return w;
}

ReleaseLogEntry Entry(ReleaseStatus status, uint8_t seed, std::string summary = "") {
  ReleaseLogEntry e;
  e.status = status;
  e.seed.fill(seed);
  e.prepared_wall_ms = 1000 + seed;
  e.summary = std::move(summary);
  return e;
}

std::vector<std::string> SignatureVehicles(const StateStore& s, int32_t partition) {
  std::vector<std::string> out;
  s.ScanSignatures(partition, [&](std::string_view v, const StoredSignature&) {
    out.emplace_back(v);
    return true;
  });
  return out;
}

std::vector<int64_t> ReleasesNewestFirst(const StateStore& s, int32_t partition) {
  std::vector<int64_t> out;
  s.ScanReleasesNewestFirst(partition, [&](int64_t r, const ReleaseLogEntry&) {
    out.push_back(r);
    return true;
  });
  return out;
}

TEST(ReleaseWrite, NothingVisibleBeforeCommitEverythingAfter) {
  TempDir dir;
  auto s = StateStore::Open(dir.path());
  ReleaseWrite in(*s);
  in.PutEvent(0, 100, 1, "e1");
  in.PutEvent(0, 200, 2, "e2");
  s->Commit(in);

  ReleaseWrite w(*s);
  w.DeleteEvent(0, 100, 1);
  w.PutSignature(0, Vehicle(1), StoredSignature{{1, 2}, 5, 5});
  w.PutWaiting(0, Waiting(Vehicle(2), 7, 3, 5));
  w.PutRelease(0, 5, Entry(ReleaseStatus::kCommitted, 9, "{}"));
  w.PutMeta(0, "clock", "clock-state");
  PartitionProgress p;
  p.next_offset = 3;
  w.SetProgress(0, p);

  EXPECT_EQ(s->CountEvents(0), 2u);
  EXPECT_EQ(s->GetSignatures(0, {Vehicle(1)})[0], std::nullopt);
  EXPECT_TRUE(s->LoadWaiting(0).empty());
  EXPECT_EQ(s->GetRelease(0, 5), std::nullopt);
  EXPECT_EQ(s->GetMeta(0, "clock"), std::nullopt);
  EXPECT_EQ(s->LoadProgress(0).next_offset, -1);

  s->Commit(w);
  EXPECT_EQ(s->CountEvents(0), 1u);
  EXPECT_EQ(s->GetSignatures(0, {Vehicle(1)})[0], (StoredSignature{{1, 2}, 5, 5}));
  ASSERT_EQ(s->LoadWaiting(0).size(), 1u);
  EXPECT_EQ(s->LoadWaiting(0)[0].tuple.vehicle, Vehicle(2));
  EXPECT_EQ(s->GetRelease(0, 5), Entry(ReleaseStatus::kCommitted, 9, "{}"));
  EXPECT_EQ(s->GetMeta(0, "clock"), "clock-state");
  EXPECT_EQ(s->LoadProgress(0).next_offset, 3);
}

TEST(ReleaseWrite, CommitEmptiesTheBatch) {
  TempDir dir;
  auto s = StateStore::Open(dir.path());
  ReleaseWrite w(*s);
  w.PutMeta(1, "clock", "old");
  s->Commit(w);
  ReleaseWrite later(*s);
  later.PutMeta(1, "clock", "new");
  s->Commit(later);
  // Committing the first write again must not bring "old" back.
  s->Commit(w);
  EXPECT_EQ(s->GetMeta(1, "clock"), "new");
}

TEST(ReleaseWrite, PrepareThenApplyAndDeletes) {
  TempDir dir;
  auto s = StateStore::Open(dir.path());
  {
    ReleaseWrite prepare(*s);
    prepare.PutRelease(2, 7, Entry(ReleaseStatus::kPrepared, 1));
    s->Commit(prepare);
  }
  EXPECT_EQ(s->GetRelease(2, 7)->status, ReleaseStatus::kPrepared);
  {
    ReleaseWrite apply(*s);
    apply.PutSignature(2, Vehicle(1), StoredSignature{{4}, 7, 7});
    apply.PutSignature(2, Vehicle(2), StoredSignature{{5}, 7, 7});
    apply.PutWaiting(2, Waiting(Vehicle(3), 0, 1, 7));
    apply.PutRelease(2, 7, Entry(ReleaseStatus::kCommitted, 1, "summary"));
    s->Commit(apply);
  }
  EXPECT_EQ(s->GetRelease(2, 7)->status, ReleaseStatus::kCommitted);
  {
    ReleaseWrite next(*s);
    next.DeleteSignature(2, Vehicle(1));  // purged after retention
    next.DeleteWaiting(2, Vehicle(3));    // published or suppressed
    next.DeleteRelease(2, 7);
    next.DeleteSignature(2, Vehicle(9));  // deleting what is not there is fine
    s->Commit(next);
  }
  EXPECT_EQ(SignatureVehicles(*s, 2), std::vector<std::string>{Vehicle(2)});
  EXPECT_TRUE(s->LoadWaiting(2).empty());
  EXPECT_EQ(s->GetRelease(2, 7), std::nullopt);
  EXPECT_TRUE(ReleasesNewestFirst(*s, 2).empty());
}

TEST(StateStoreRelease, EverythingReadsBackAfterReopen) {
  TempDir dir;
  std::vector<std::string> vehicles;
  for (uint32_t i = 0; i < 40; ++i) vehicles.push_back(Vehicle(i));
  {
    auto s = StateStore::Open(dir.path());
    ReleaseWrite w(*s);
    for (uint32_t i = 0; i < vehicles.size(); ++i) {
      w.PutSignature(4, vehicles[i], StoredSignature{{i, i + 10}, -2, static_cast<int64_t>(i)});
      if (i % 3 == 0) w.PutWaiting(4, Waiting(vehicles[i], static_cast<int32_t>(i), i, 9));
    }
    w.PutRelease(4, -2, Entry(ReleaseStatus::kCommitted, 2, "a"));
    w.PutRelease(4, -1, Entry(ReleaseStatus::kPrepared, 3));
    w.PutMeta(4, "dictionary", std::string("\0\1dict", 6));
    s->Commit(w);
  }
  auto s = StateStore::Open(dir.path());
  std::vector<std::string> sorted = vehicles;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(SignatureVehicles(*s, 4), sorted);
  auto sigs = s->GetSignatures(4, vehicles);
  ASSERT_EQ(sigs.size(), vehicles.size());
  for (uint32_t i = 0; i < vehicles.size(); ++i) {
    EXPECT_EQ(sigs[i], (StoredSignature{{i, i + 10}, -2, static_cast<int64_t>(i)})) << i;
  }
  std::vector<engine::WaitingTuple> waiting = s->LoadWaiting(4);
  ASSERT_EQ(waiting.size(), 14u);
  EXPECT_TRUE(std::is_sorted(
      waiting.begin(), waiting.end(),
      [](const engine::WaitingTuple& a, const engine::WaitingTuple& b) { return a.tuple.vehicle < b.tuple.vehicle; }));
  for (const engine::WaitingTuple& w : waiting) {
    auto it = std::find(vehicles.begin(), vehicles.end(), w.tuple.vehicle);
    ASSERT_NE(it, vehicles.end());
    const uint32_t i = static_cast<uint32_t>(it - vehicles.begin());
    EXPECT_EQ(i % 3, 0u);
    EXPECT_EQ(w.tuple.qi, (std::vector<int32_t>{static_cast<int32_t>(i), 1}));
    EXPECT_EQ(w.tuple.sensitive, i);
    EXPECT_EQ(w.tuple.events, 2u);
    EXPECT_EQ(w.first_release, 9u);
  }
  EXPECT_EQ(ReleasesNewestFirst(*s, 4), (std::vector<int64_t>{-1, -2}));
  EXPECT_EQ(s->GetRelease(4, -2), Entry(ReleaseStatus::kCommitted, 2, "a"));
  EXPECT_EQ(s->GetMeta(4, "dictionary"), std::string("\0\1dict", 6));
}

// Events inside waiting records are visited with their keys, partition by
// partition; the events family is asked only whether it holds anything
// older than a time.
TEST(StateStoreRelease, WaitingRecordsCarryTheirEventsAndTheEventsFamilyAnswersForItsOwn) {
  TempDir dir;
  auto s = StateStore::Open(dir.path());
  ReleaseWrite w(*s);
  w.PutWaiting(0, Waiting(Vehicle(1), 0, 1, 1), {{3000, 7, "x"}, {3500, 8, "y"}});
  w.PutWaiting(0, Waiting(Vehicle(2), 0, 1, 1));
  w.PutWaiting(1, Waiting(Vehicle(1), 0, 1, 1), {{3000, 9, "z"}});
  w.PutEvent(0, 1000, 1, "a");
  w.PutEvent(0, 2000, 2, "b");
  s->Commit(w);

  std::vector<std::tuple<int64_t, int64_t, std::string>> seen;
  s->ScanWaitingEvents(
      0, [&](int64_t ts, int64_t offset, std::string_view v) { seen.emplace_back(ts, offset, std::string(v)); });
  EXPECT_EQ(seen, (std::vector<std::tuple<int64_t, int64_t, std::string>>{{3000, 7, "x"}, {3500, 8, "y"}}));
  EXPECT_EQ(s->LoadWaiting(0).size(), 2u);
  EXPECT_FALSE(s->HasEventsBefore(0, 1000));
  EXPECT_TRUE(s->HasEventsBefore(0, 1001));
  EXPECT_FALSE(s->HasEventsBefore(1, INT64_MAX));

  ReleaseWrite later(*s);
  later.DeleteEventRange(0, 0, 1500);
  s->Commit(later);
  EXPECT_FALSE(s->HasEventsBefore(0, 2000));
  EXPECT_TRUE(s->HasEventsBefore(0, 2001));
}

TEST(StateStoreRelease, PartitionsNeverSeeEachOther) {
  TempDir dir;
  auto s = StateStore::Open(dir.path());
  // Neighbouring partitions, and the first and last in key order (-1 is 0xffffffff).
  const std::vector<int32_t> partitions = {0, 1, 2, INT32_MAX, -1};
  ReleaseWrite w(*s);
  for (int32_t p : partitions) {
    const uint32_t tag = static_cast<uint32_t>(p) % 1000;
    // The same vehicle key in every partition, plus one of its own.
    w.PutSignature(p, Vehicle(7), StoredSignature{{tag}, p, p});
    w.PutSignature(p, Vehicle(100 + tag), StoredSignature{{tag}, p, p});
    w.PutWaiting(p, Waiting(Vehicle(7), p, tag, 1));
    w.PutRelease(p, p, Entry(ReleaseStatus::kPrepared, static_cast<uint8_t>(tag)));
    w.PutMeta(p, "clock", std::to_string(p));
  }
  s->Commit(w);
  for (int32_t p : partitions) {
    const uint32_t tag = static_cast<uint32_t>(p) % 1000;
    std::vector<std::string> expected = {Vehicle(7), Vehicle(100 + tag)};
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(SignatureVehicles(*s, p), expected) << p;
    s->ScanSignatures(p, [&](std::string_view, const StoredSignature& sig) {
      EXPECT_EQ(sig.first_release, p);
      return true;
    });
    EXPECT_EQ(s->GetSignatures(p, {Vehicle(7)})[0]->values, engine::Signature{tag});
    auto waiting = s->LoadWaiting(p);
    ASSERT_EQ(waiting.size(), 1u) << p;
    EXPECT_EQ(waiting[0].tuple.qi[0], p);
    EXPECT_EQ(ReleasesNewestFirst(*s, p), std::vector<int64_t>{p});
    EXPECT_EQ(s->GetMeta(p, "clock"), std::to_string(p));
  }
  EXPECT_TRUE(SignatureVehicles(*s, 3).empty());
  EXPECT_TRUE(s->LoadWaiting(INT32_MAX - 1).empty());
  EXPECT_TRUE(ReleasesNewestFirst(*s, -2).empty());
  EXPECT_EQ(s->GetMeta(3, "clock"), std::nullopt);
}

TEST(StateStoreRelease, ReleasesNewestFirstOrdersNegativeAndPositiveIds) {
  TempDir dir;
  auto s = StateStore::Open(dir.path());
  const std::vector<int64_t> ids = {7, -1, 0, INT64_MIN, 256, -256, 1, INT64_MAX, -7, 255};
  ReleaseWrite w(*s);
  for (size_t i = 0; i < ids.size(); ++i) {
    w.PutRelease(3, ids[i], Entry(ReleaseStatus::kCommitted, static_cast<uint8_t>(i)));
  }
  w.PutRelease(2, 1000, Entry(ReleaseStatus::kPrepared, 0));
  w.PutRelease(4, -1000, Entry(ReleaseStatus::kPrepared, 0));
  s->Commit(w);

  std::vector<int64_t> expected = ids;
  std::sort(expected.rbegin(), expected.rend());
  EXPECT_EQ(ReleasesNewestFirst(*s, 3), expected);
  // Each entry comes with its own record.
  s->ScanReleasesNewestFirst(3, [&](int64_t r, const ReleaseLogEntry& e) {
    const size_t i = static_cast<size_t>(std::find(ids.begin(), ids.end(), r) - ids.begin());
    EXPECT_EQ(e.seed[0], i);
    return true;
  });
  // The visitor stops the scan.
  std::vector<int64_t> newest_two;
  s->ScanReleasesNewestFirst(3, [&](int64_t r, const ReleaseLogEntry&) {
    newest_two.push_back(r);
    return newest_two.size() < 2;
  });
  EXPECT_EQ(newest_two, (std::vector<int64_t>{INT64_MAX, 256}));
}

TEST(StateStoreRelease, GetSignaturesHitsMissesAndDuplicates) {
  TempDir dir;
  auto s = StateStore::Open(dir.path());
  ReleaseWrite w(*s);
  w.PutSignature(1, Vehicle(1), StoredSignature{{1, 3}, 1, 1});
  w.PutSignature(1, Vehicle(2), StoredSignature{{2, 4}, 1, 2});
  w.PutSignature(2, Vehicle(3), StoredSignature{{9}, 1, 1});  // other partition
  s->Commit(w);

  EXPECT_TRUE(s->GetSignatures(1, {}).empty());
  auto got = s->GetSignatures(1, {Vehicle(2), Vehicle(3), Vehicle(1), Vehicle(2), Vehicle(4), Vehicle(1)});
  ASSERT_EQ(got.size(), 6u);
  EXPECT_EQ(got[0], (StoredSignature{{2, 4}, 1, 2}));
  EXPECT_EQ(got[1], std::nullopt);  // stored, but in partition 2
  EXPECT_EQ(got[2], (StoredSignature{{1, 3}, 1, 1}));
  EXPECT_EQ(got[3], got[0]);
  EXPECT_EQ(got[4], std::nullopt);
  EXPECT_EQ(got[5], got[2]);

  // Many keys at once, half of them missing.
  std::vector<std::string> many;
  for (uint32_t i = 0; i < 500; ++i) many.push_back(Vehicle(i % 250 + (i % 2 ? 0 : 1000)));
  auto lots = s->GetSignatures(1, many);
  for (size_t i = 0; i < many.size(); ++i) {
    const bool stored = many[i] == Vehicle(1) || many[i] == Vehicle(2);
    EXPECT_EQ(lots[i].has_value(), stored) << i;
  }
}

}  // namespace
}  // namespace vanon::state
