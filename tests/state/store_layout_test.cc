// The on-disk layout as docs/state.md describes it, checked with RocksDB
// directly: an old store (default/events/meta only) upgrades in place, keys
// have the documented bytes, and a corrupt signature is reported without
// its key.
#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "temp_dir.h"
#include "vanon/state/state_store.h"

namespace vanon::state {
namespace {

std::string Bytes(std::initializer_list<int> b) {
  std::string s;
  for (int c : b) s.push_back(static_cast<char>(c));
  return s;
}

// Opens `dir` with exactly the column families it has, for raw access.
struct RawDb {
  explicit RawDb(const std::string& dir, std::vector<std::string> names, bool create = false) {
    rocksdb::Options opts;
    opts.create_if_missing = create;
    opts.create_missing_column_families = create;
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
    for (const std::string& n : names) cfs.emplace_back(n, rocksdb::ColumnFamilyOptions());
    rocksdb::DB* raw = nullptr;
    rocksdb::Status s = rocksdb::DB::Open(opts, dir, cfs, &handles, &raw);
    EXPECT_TRUE(s.ok()) << s.ToString();
    db.reset(raw);
    for (size_t i = 0; i < names.size(); ++i) by_name[names[i]] = handles[i];
  }
  ~RawDb() {
    if (!db) return;
    for (auto* h : handles) db->DestroyColumnFamilyHandle(h);
    db->Close();
  }
  std::vector<std::string> Keys(const std::string& cf) {
    std::vector<std::string> out;
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions(), by_name.at(cf)));
    for (it->SeekToFirst(); it->Valid(); it->Next()) out.push_back(it->key().ToString());
    return out;
  }
  std::unique_ptr<rocksdb::DB> db;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  std::map<std::string, rocksdb::ColumnFamilyHandle*> by_name;
};

std::vector<std::string> ColumnFamilies(const std::string& dir) {
  std::vector<std::string> names;
  rocksdb::Status s = rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(), dir, &names);
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::sort(names.begin(), names.end());
  return names;
}

const std::vector<std::string> kAllFamilies = {"default",    "events",  "meta",   "releases",
                                               "signatures", "waiting", "windows"};

TEST(StoreLayout, OldStoreOpensAndGainsTheNewColumnFamilies) {
  TempDir dir;
  PartitionProgress p;
  p.next_offset = 31;
  p.accepted = 30;
  {
    // What ingestion wrote before the release loop existed, byte for byte.
    RawDb old(dir.path(), {"default", "events", "meta"}, /*create=*/true);
    const std::string event_key = Bytes({0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0x03, 0xe8, 0, 0, 0, 0, 0, 0, 0, 30});
    ASSERT_TRUE(old.db->Put(rocksdb::WriteOptions(), old.by_name["events"], event_key, "event").ok());
    ASSERT_TRUE(
        old.db->Put(rocksdb::WriteOptions(), old.by_name["meta"], "progress/" + Bytes({0, 0, 0, 6}), p.Encode()).ok());
  }
  ASSERT_EQ(ColumnFamilies(dir.path()), (std::vector<std::string>{"default", "events", "meta"}));
  {
    auto s = StateStore::Open(dir.path());
    EXPECT_EQ(s->LoadProgress(6).next_offset, 31);
    EXPECT_EQ(s->LoadProgress(6).accepted, 30u);
    std::vector<std::string> events;
    s->ScanEvents(6, [&](int64_t ts, int64_t off, std::string_view v) {
      events.push_back(std::to_string(ts) + "/" + std::to_string(off) + "/" + std::string(v));
      return true;
    });
    EXPECT_EQ(events, std::vector<std::string>{"1000/30/event"});
    EXPECT_EQ(s->GetSignatures(6, {std::string(32, 'v')})[0], std::nullopt);
    EXPECT_TRUE(s->LoadWaiting(6).empty());
    ReleaseWrite w(*s);
    w.DeleteEvent(6, 1000, 30);
    w.PutSignature(6, std::string(32, 'v'), StoredSignature{{2, 3}, 0, 0});
    s->Commit(w);
  }
  EXPECT_EQ(ColumnFamilies(dir.path()), kAllFamilies);
  auto s = StateStore::Open(dir.path());
  EXPECT_EQ(s->CountEvents(6), 0u);
  EXPECT_EQ(s->GetSignatures(6, {std::string(32, 'v')})[0], (StoredSignature{{2, 3}, 0, 0}));
  EXPECT_EQ(s->GetWindows(6, {std::string(32, 'v')})[0], std::nullopt) << "a store before value windows has none";
}

TEST(StoreLayout, KeysHaveTheDocumentedBytes) {
  TempDir dir;
  const std::string vehicle(32, '\xee');
  {
    auto s = StateStore::Open(dir.path());
    ReleaseWrite w(*s);
    w.PutSignature(1, vehicle, StoredSignature{{1}, 0, 0});
    engine::WaitingTuple t;
    t.tuple.vehicle = vehicle;
    w.PutWaiting(258, t);
    w.PutRelease(1, -1, ReleaseLogEntry{});
    w.PutRelease(1, 0, ReleaseLogEntry{});
    w.PutRelease(1, 258, ReleaseLogEntry{});
    w.PutMeta(3, "clock", "c");
    s->Commit(w);
  }
  RawDb raw(dir.path(), kAllFamilies);
  EXPECT_EQ(raw.Keys("signatures"), std::vector<std::string>{Bytes({0, 0, 0, 1}) + vehicle});
  EXPECT_EQ(raw.Keys("waiting"), std::vector<std::string>{Bytes({0, 0, 1, 2}) + vehicle});
  // Sign bit flipped: -1 -> 7f ff .., 0 -> 80 00 .., 258 -> 80 .. 01 02.
  EXPECT_EQ(raw.Keys("releases"),
            (std::vector<std::string>{Bytes({0, 0, 0, 1, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}),
                                      Bytes({0, 0, 0, 1, 0x80, 0, 0, 0, 0, 0, 0, 0}),
                                      Bytes({0, 0, 0, 1, 0x80, 0, 0, 0, 0, 0, 1, 2})}));
  EXPECT_EQ(raw.Keys("meta"), std::vector<std::string>{"clock/" + Bytes({0, 0, 0, 3})});
}

TEST(StoreLayout, CorruptSignatureThrowsWithoutTheKey) {
  TempDir dir;
  // A vehicle key that is printable, so a leak into the message would show.
  const std::string vehicle = "HMAC-OF-VIN-0123456789abcdefghij";
  ASSERT_EQ(vehicle.size(), 32u);
  { auto s = StateStore::Open(dir.path()); }
  {
    RawDb raw(dir.path(), kAllFamilies);
    ASSERT_TRUE(raw.db
                    ->Put(rocksdb::WriteOptions(), raw.by_name["signatures"], Bytes({0, 0, 0, 2}) + vehicle,
                          Bytes({1, 0, 0, 2, 9, 3}))  // ids not sorted
                    .ok());
  }
  auto s = StateStore::Open(dir.path());
  for (int how = 0; how < 2; ++how) {
    try {
      if (how == 0) {
        s->GetSignatures(2, {vehicle});
      } else {
        s->ScanSignatures(2, [](std::string_view, const StoredSignature&) { return true; });
      }
      ADD_FAILURE() << "no exception, way " << how;
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("state: corrupt signature"), std::string::npos) << what;
      EXPECT_EQ(what.find("HMAC"), std::string::npos) << what;
    }
  }
  // Other partitions are unaffected.
  EXPECT_EQ(s->GetSignatures(1, {vehicle})[0], std::nullopt);
}

}  // namespace
}  // namespace vanon::state
