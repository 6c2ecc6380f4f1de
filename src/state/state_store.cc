#include "vanon/state/state_store.h"

#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/write_batch.h>

#include <stdexcept>
#include <vector>

#include "key_codec.h"

namespace vanon {

namespace {
constexpr const char* kEventsCf = "events";
constexpr const char* kMetaCf = "meta";

void Check(const rocksdb::Status& s, const std::string& what) {
  if (!s.ok()) throw std::runtime_error("state: " + what + ": " + s.ToString());
}

std::string ProgressKey(int32_t partition) {
  std::string k = "progress/";
  AppendU32(&k, static_cast<uint32_t>(partition));
  return k;
}
}  // namespace

struct StateStore::Rep {
  std::unique_ptr<rocksdb::DB> db;
  rocksdb::ColumnFamilyHandle* events = nullptr;
  rocksdb::ColumnFamilyHandle* meta = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
};

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
  Check(rep_->batch.Put(rep_->events, rep_->key, rocksdb::Slice(encoded.data(), encoded.size())), "batch put");
  events_++;
}

void IngestWrite::SetProgress(int32_t partition, const PartitionProgress& p) {
  Check(rep_->batch.Put(rep_->meta, ProgressKey(partition), p.Encode()), "batch put");
}



StateStore::StateStore() : rep_(std::make_unique<Rep>()) {}

StateStore::~StateStore() {
  if (!rep_->db) return;
  rep_->db->FlushWAL(true);
  for (auto* h : rep_->handles) rep_->db->DestroyColumnFamilyHandle(h);
  rep_->db->Close();
}

std::unique_ptr<StateStore> StateStore::Open(const std::string& dir) {
  rocksdb::Options opts;
  opts.create_if_missing = true;
  opts.create_missing_column_families = true;
  opts.max_background_jobs = 2;  // the target machines have two cores
  opts.keep_log_file_num = 5;
  rocksdb::ColumnFamilyOptions cf;
  cf.write_buffer_size = 32 << 20;
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs = {
      {rocksdb::kDefaultColumnFamilyName, cf}, {kEventsCf, cf}, {kMetaCf, cf}};
  std::unique_ptr<StateStore> s(new StateStore());
  rocksdb::DB* db = nullptr;
  Check(rocksdb::DB::Open(opts, dir, cfs, &s->rep_->handles, &db), "open " + dir);
  s->rep_->db.reset(db);
  s->rep_->events = s->rep_->handles[1];
  s->rep_->meta = s->rep_->handles[2];
  return s;
}

PartitionProgress StateStore::LoadProgress(int32_t partition) const {
  std::string v;
  rocksdb::Status st = rep_->db->Get(rocksdb::ReadOptions(), rep_->meta, ProgressKey(partition), &v);
  if (st.IsNotFound()) return PartitionProgress{};
  Check(st, "read progress");
  auto p = PartitionProgress::Decode(v);
  if (!p) throw std::runtime_error("state: corrupt progress record for partition " + std::to_string(partition));
  return *p;
}

void StateStore::Commit(IngestWrite& w) {
  rocksdb::WriteBatch& b = w.rep_->batch;
  Check(rep_->db->Write(rocksdb::WriteOptions(), &b), "write batch");
  b.Clear();
  w.events_ = 0;
}

void StateStore::ScanEvents(
    int32_t partition,
    const std::function<bool(int64_t, int64_t, std::string_view)>& fn) const {
  std::string prefix;
  AppendU32(&prefix, static_cast<uint32_t>(partition));
  std::unique_ptr<rocksdb::Iterator> it(rep_->db->NewIterator(rocksdb::ReadOptions(), rep_->events));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    int32_t p;
    int64_t ts, off;
    if (!DecodeEventKey(it->key().ToStringView(), &p, &ts, &off)) continue;
    if (!fn(ts, off, it->value().ToStringView())) break;
  }
  Check(it->status(), "scan events");
}

uint64_t StateStore::CountEvents(int32_t partition) const {
  uint64_t n = 0;
  ScanEvents(partition, [&](int64_t, int64_t, std::string_view) { ++n; return true; });
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

}  // namespace vanon
