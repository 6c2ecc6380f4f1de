#include "vanon/state/state_store.h"

#include <rocksdb/db.h>
#include <rocksdb/file_system.h>
#include <rocksdb/memtablerep.h>
#include <rocksdb/options.h>
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

std::string ProgressKey(int32_t partition) { return MetaKey(partition, "progress"); }
}  // namespace

struct IngestWrite::Rep {
  rocksdb::WriteBatch batch;
  rocksdb::ColumnFamilyHandle* events;
  rocksdb::ColumnFamilyHandle* meta;
  std::string key;
};

IngestWrite::IngestWrite(const StateStore& store) : rep_(std::make_unique<Rep>()) {
  rep_->events = store.rep_->events;
  rep_->meta = store.rep_->meta;
}
IngestWrite::~IngestWrite() = default;

void IngestWrite::PutEvent(int32_t partition, int64_t ts_ms, int64_t offset, std::string_view encoded) {
  rep_->key = EventKey(partition, ts_ms, offset);
  CheckStatus(rep_->batch.Put(rep_->events, rep_->key, rocksdb::Slice(encoded.data(), encoded.size())), "batch put");
  events_++;
}

void IngestWrite::SetProgress(int32_t partition, const PartitionProgress& p) {
  CheckStatus(rep_->batch.Put(rep_->meta, ProgressKey(partition), p.Encode()), "batch put");
}

void IngestWrite::PutMeta(int32_t partition, std::string_view name, std::string_view value) {
  CheckStatus(rep_->batch.Put(rep_->meta, MetaKey(partition, name), rocksdb::Slice(value.data(), value.size())),
              "batch put");
}

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
  // release computed during the allowed lateness cannot. A flush of the
  // events column family sorts about a million entries once an epoch, and
  // at normal priority it landed in that window. (Three memtables leave
  // about two epochs of slack before writes would stall.)
  rocksdb::Env::Default()->LowerThreadPoolCPUPriority(rocksdb::Env::Priority::HIGH, rocksdb::CpuPriority::kLow);
  rocksdb::Env::Default()->LowerThreadPoolCPUPriority(rocksdb::Env::Priority::LOW, rocksdb::CpuPriority::kLow);
  opts.keep_log_file_num = 5;
  rocksdb::ColumnFamilyOptions cf;
  cf.write_buffer_size = 32 << 20;
  // create_missing_column_families upgrades a store written before the
  // release loop existed (default, events, meta only) in place.
  // Buffered events live for about one epoch and are read back only when a
  // partition is assigned (releases take them from EventBuffer):
  // compressing them cost more CPU than the disk it saved.
  rocksdb::ColumnFamilyOptions events_cf = cf;
  events_cf.compression = rocksdb::kNoCompression;
  // Big enough to hold an epoch's events at 100,000 events/s until their
  // release deletes them: a flush then drops them (the range tombstone sits
  // in the same memtable) instead of writing and compacting them.
  events_cf.write_buffer_size = 256 << 20;
  events_cf.max_write_buffer_number = 3;
  // Releases read their events from memory (EventBuffer); state reads them
  // only when a partition is assigned. So the memtable is an append-only
  // vector, sorted once at flush (by a RocksDB thread), instead of a skip
  // list whose cache-missing inserts were a fifth of ingestion's CPU: with
  // the skip list the benchmark consumed 88k instead of 100k events/s.
  // (Per-partition insert hints for the skip list tripped an assertion
  // inside RocksDB 7.8.)
  events_cf.memtable_factory = std::make_shared<rocksdb::VectorRepFactory>();
  opts.allow_concurrent_memtable_write = false;  // only the skip list supports it
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs = {{rocksdb::kDefaultColumnFamilyName, cf},
                                                      {kEventsCf, events_cf},
                                                      {kMetaCf, cf},
                                                      {kSignaturesCf, cf},
                                                      {kWaitingCf, cf},
                                                      {kReleasesCf, cf}};
  rocksdb::DB* db = nullptr;
  CheckStatus(rocksdb::DB::Open(opts, dir, cfs, &s->rep_->handles, &db), "open " + dir);
  s->rep_->db.reset(db);
  s->rep_->events = s->rep_->handles[1];
  s->rep_->meta = s->rep_->handles[2];
  s->rep_->signatures = s->rep_->handles[3];
  s->rep_->waiting = s->rep_->handles[4];
  s->rep_->releases = s->rep_->handles[5];
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

void StateStore::Commit(IngestWrite& w) {
  rocksdb::WriteBatch& b = w.rep_->batch;
  CheckStatus(rep_->db->Write(rocksdb::WriteOptions(), &b), "write batch");
  b.Clear();
  w.events_ = 0;
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
