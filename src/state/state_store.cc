#include "vanon/state/state_store.h"

#include <rocksdb/db.h>
#include <rocksdb/file_system.h>
#include <rocksdb/memtablerep.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <stdexcept>
#include <vector>

#include "base/machine.h"
#include "key_codec.h"
#include "state_store_rep.h"

namespace vanon::state {

namespace {
constexpr const char* kEventsCf = "events";
constexpr const char* kMetaCf = "meta";
constexpr const char* kSignaturesCf = "signatures";
constexpr const char* kWaitingCf = "waiting";
constexpr const char* kReleasesCf = "releases";
constexpr const char* kWindowsCf = "windows";

std::string ProgressKey(int32_t partition) { return MetaKey(partition, "progress"); }

// The partition prefix of a vehicle key (VehicleKey), where the memtable
// keeps an insert position. A key of the prefix's length alone is outside
// the domain: such keys are only the bounds of ReplacePartition's range
// deletions, and RocksDB 7.8 keeps one position per prefix for a table and
// its range-deletion table alike, so a range deletion under it would start
// from a node of the other skip list (a failed assertion in tests, memory
// read at random without them).
class VehicleKeyPartition : public rocksdb::SliceTransform {
 public:
  const char* Name() const override { return "vanon.VehicleKeyPartition"; }
  rocksdb::Slice Transform(const rocksdb::Slice& key) const override { return {key.data(), kPrefixBytes}; }
  bool InDomain(const rocksdb::Slice& key) const override { return key.size() > kPrefixBytes; }

 private:
  static constexpr size_t kPrefixBytes = sizeof(uint32_t);  // PartitionPrefix
};
}  // namespace

StateStore::StateStore() : rep_(std::make_unique<Rep>()) {}

StateStore::~StateStore() {
  if (!rep_->db) return;
  rep_->db->FlushWAL(true);
  for (auto* h : rep_->handles) rep_->db->DestroyColumnFamilyHandle(h);
  rep_->db->Close();
}

std::unique_ptr<StateStore> StateStore::Open(const std::string& dir) { return Open(dir, nullptr); }

std::unique_ptr<StateStore> StateStore::Open(const std::string& dir, std::shared_ptr<rocksdb::FileSystem> fs) {
  std::unique_ptr<StateStore> s(new StateStore());
  rocksdb::Options opts;
  if (fs) {
    s->rep_->env = rocksdb::NewCompositeEnv(fs);
    opts.env = s->rep_->env.get();
  }
  opts.create_if_missing = true;
  opts.create_missing_column_families = true;
  opts.max_background_jobs = base::HardwareThreads();  // flushes and compactions: 2 on the target machines
  // Flushes and compactions can wait for an idle moment; ingestion and the
  // release computed during the allowed lateness cannot.
  rocksdb::Env::Default()->LowerThreadPoolCPUPriority(rocksdb::Env::Priority::HIGH, rocksdb::CpuPriority::kLow);
  rocksdb::Env::Default()->LowerThreadPoolCPUPriority(rocksdb::Env::Priority::LOW, rocksdb::CpuPriority::kLow);
  opts.keep_log_file_num = 5;
  rocksdb::ColumnFamilyOptions cf;
  cf.write_buffer_size = 32 << 20;
  // A release looks up every vehicle of its epoch (signatures, waiting
  // tuples, value windows), and in the first releases of a fleet most are
  // not there: whole-key bloom filters, in the memtable and in the tables,
  // answer those without a skip-list search or a block read.
  cf.memtable_prefix_bloom_size_ratio = 0.02;
  cf.memtable_whole_key_filtering = true;
  rocksdb::BlockBasedTableOptions table;
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  // create_missing_column_families upgrades a store written before the
  // release loop existed (default, events, meta only) in place. The events
  // family gets only the few events of waiting tuples (a release's apply
  // batch) and range deletes: ingestion keeps open epochs in memory.
  // The events family is written by every release's apply (the events of
  // waiting tuples put, then deleted one by one when the tuple leaves) and
  // read only when a partition is opened or restored. A skip list made each
  // of those writes an ordered insert, most of an apply's CPU (callgrind);
  // a vector memtable appends them and sorts once, when it is read or
  // flushed. Range deletions keep their own table.
  rocksdb::ColumnFamilyOptions events_cf = cf;
  events_cf.memtable_factory = std::make_shared<rocksdb::VectorRepFactory>();
  // Scanned, never looked up by key: no filters to build.
  events_cf.memtable_prefix_bloom_size_ratio = 0;
  events_cf.memtable_whole_key_filtering = false;
  events_cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory());
  // Families keyed by partition and vehicle. A release's apply writes one
  // partition's records in key order (AddShareDelta); the memtable keeps an
  // insert position per partition prefix and corrects it from the nearest
  // level that still brackets the next key. Without the hint every insert
  // that does not land right after the previous one searched the skip list
  // from the top: about 90 comparisons, most of an apply at a million
  // vehicles (callgrind).
  rocksdb::ColumnFamilyOptions by_vehicle_cf = cf;
  by_vehicle_cf.memtable_insert_with_hint_prefix_extractor = std::make_shared<VehicleKeyPartition>();
  // Which a vector memtable requires; writes come from one thread at a time
  // anyway (applies and checkpoints on the consuming thread, a DP ledger
  // charge now and then).
  opts.allow_concurrent_memtable_write = false;
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs = {{rocksdb::kDefaultColumnFamilyName, cf},
                                                      {kEventsCf, events_cf},
                                                      {kMetaCf, cf},
                                                      {kSignaturesCf, by_vehicle_cf},
                                                      {kWaitingCf, by_vehicle_cf},
                                                      {kReleasesCf, cf},
                                                      {kWindowsCf, by_vehicle_cf}};
  rocksdb::DB* db = nullptr;
  CheckStatus(rocksdb::DB::Open(opts, dir, cfs, &s->rep_->handles, &db), "open " + dir);
  s->rep_->db.reset(db);
  s->rep_->events = s->rep_->handles[1];
  s->rep_->meta = s->rep_->handles[2];
  s->rep_->signatures = s->rep_->handles[3];
  s->rep_->waiting = s->rep_->handles[4];
  s->rep_->releases = s->rep_->handles[5];
  s->rep_->windows = s->rep_->handles[6];
  return s;
}

PartitionProgress StateStore::LoadProgress(int32_t partition) const {
  std::string v;
  rocksdb::Status st = rep_->db->Get(rocksdb::ReadOptions(), rep_->meta, ProgressKey(partition), &v);
  if (st.IsNotFound()) return PartitionProgress{};
  CheckStatus(st, "read progress");
  auto p = PartitionProgress::Decode(v);
  if (!p) throw std::runtime_error("state: corrupt progress record for partition " + std::to_string(partition));
  return *p;
}

std::optional<std::string> StateStore::GetMeta(int32_t partition, std::string_view name) const {
  std::string v;
  rocksdb::Status st = rep_->db->Get(rocksdb::ReadOptions(), rep_->meta, MetaKey(partition, name), &v);
  if (st.IsNotFound()) return std::nullopt;
  CheckStatus(st, "read meta record for partition " + std::to_string(partition));
  return v;
}

void StateStore::ScanEvents(int32_t partition,
                            const std::function<bool(int64_t, int64_t, std::string_view)>& fn) const {
  std::string prefix;
  base::PutBigEndian32(&prefix, static_cast<uint32_t>(partition));
  rocksdb::ReadOptions ro;
  ro.fill_cache = false;  // read once by a release: keep the block cache for signatures
  std::unique_ptr<rocksdb::Iterator> it(rep_->db->NewIterator(ro, rep_->events));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    int32_t p;
    int64_t ts, off;
    if (!DecodeEventKey(it->key().ToStringView(), &p, &ts, &off)) continue;
    if (!fn(ts, off, it->value().ToStringView())) break;
  }
  CheckStatus(it->status(), "scan events");
}

bool StateStore::HasEventsBefore(int32_t partition, int64_t ts_ms) const {
  bool found = false;
  ScanEvents(partition, [&](int64_t ts, int64_t, std::string_view) {
    found = ts < ts_ms;
    return false;  // the first key has the partition's lowest time
  });
  return found;
}

uint64_t StateStore::CountEvents(int32_t partition) const {
  uint64_t n = 0;
  ScanEvents(partition, [&](int64_t, int64_t, std::string_view) {
    ++n;
    return true;
  });
  return n;
}

uint64_t StateStore::CountAllEvents() const {
  uint64_t n = 0;
  std::unique_ptr<rocksdb::Iterator> it(rep_->db->NewIterator(rocksdb::ReadOptions(), rep_->events));
  for (it->SeekToFirst(); it->Valid(); it->Next()) ++n;
  return n;
}

uint64_t StateStore::ApproximateBytes() const {
  uint64_t sst = 0, mem = 0;
  rep_->db->GetAggregatedIntProperty("rocksdb.total-sst-files-size", &sst);
  rep_->db->GetAggregatedIntProperty("rocksdb.cur-size-all-mem-tables", &mem);
  return sst + mem;
}

void StateStore::Flush() {
  rocksdb::FlushOptions fo;
  rep_->db->Flush(fo, rep_->handles);
}

}  // namespace vanon::state
