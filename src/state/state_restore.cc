// The two ends of the state changelog inside the store: the changes a
// release batch makes (ReleaseWrite::Changes) and a partition replaced by
// what the changelog holds (StateStore::ReplacePartition); and the whole of
// a partition, for a changelog seeded from local state (VisitPartition).
#include <rocksdb/write_batch.h>

#include "key_codec.h"
#include "state_store_rep.h"

namespace vanon::state {

namespace {

class ChangeCollector : public rocksdb::WriteBatch::Handler {
 public:
  ChangeCollector(const FamilyHandles& families, std::vector<StateChange>* out) : families_(families), out_(out) {}

  rocksdb::Status PutCF(uint32_t cf, const rocksdb::Slice& key, const rocksdb::Slice& value) override {
    out_->push_back({FamilyOf(cf), key.ToString(), value.ToString()});
    return rocksdb::Status::OK();
  }
  rocksdb::Status DeleteCF(uint32_t cf, const rocksdb::Slice& key) override {
    out_->push_back({FamilyOf(cf), key.ToString(), std::nullopt});
    return rocksdb::Status::OK();
  }
  rocksdb::Status SingleDeleteCF(uint32_t cf, const rocksdb::Slice& key) override { return DeleteCF(cf, key); }
  // Only ReleaseWrite::DeleteEventRange: the epoch's own events, which are
  // re-read from the input topic rather than changelogged.
  rocksdb::Status DeleteRangeCF(uint32_t, const rocksdb::Slice&, const rocksdb::Slice&) override {
    return rocksdb::Status::OK();
  }

 private:
  StateFamily FamilyOf(uint32_t cf) const {
    for (const auto& [f, handle] : families_) {
      if (handle->GetID() == cf) return f;
    }
    throw std::runtime_error("state: release batch writes an unknown column family");
  }

  const FamilyHandles& families_;
  std::vector<StateChange>* out_;
};

}  // namespace

std::string MetaRecordKey(int32_t partition, std::string_view name) { return MetaKey(partition, name); }

std::string ReleaseRecordKey(int32_t partition, int64_t release) { return ReleaseKey(partition, release); }

std::optional<int64_t> ReleaseOfKey(std::string_view key) {
  int64_t release = 0;
  if (!DecodeReleaseKey(key, &release)) return std::nullopt;
  return release;
}

std::vector<StateChange> CollectChanges(const FamilyHandles& families, const rocksdb::WriteBatch& batch) {
  std::vector<StateChange> out;
  ChangeCollector c(families, &out);
  CheckStatus(batch.Iterate(&c), "read release batch");
  return out;
}

void StateStore::ReplacePartition(int32_t partition, const std::vector<StateChange>& records) {
  rocksdb::WriteBatch b;
  const std::string from = PartitionPrefix(partition);
  const uint32_t next = static_cast<uint32_t>(partition) + 1;
  // Partition-prefixed families: one range tombstone each. (Partition ids
  // are far below 2^32 - 1, so `next` never wraps.) The bounds must stay
  // bare prefixes: the memtable's insert hint must not see them
  // (VehicleKeyPartition, state_store.cc).
  const std::string to = PartitionPrefix(static_cast<int32_t>(next));
  for (rocksdb::ColumnFamilyHandle* cf :
       {rep_->events, rep_->signatures, rep_->waiting, rep_->releases, rep_->windows}) {
    CheckStatus(b.DeleteRange(cf, from, to), "restore: delete range");
  }
  // Meta keys end with the partition: the family is small, so scan it.
  const std::string suffix = "/" + from;
  std::unique_ptr<rocksdb::Iterator> it(rep_->db->NewIterator(rocksdb::ReadOptions(), rep_->meta));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (it->key().ToStringView().ends_with(suffix)) CheckStatus(b.Delete(rep_->meta, it->key()), "restore: delete");
  }
  CheckStatus(it->status(), "restore: scan meta of partition " + std::to_string(partition));
  for (const StateChange& c : records) {
    rocksdb::ColumnFamilyHandle* cf = nullptr;
    switch (c.family) {
      case StateFamily::kEvents:
        cf = rep_->events;
        break;
      case StateFamily::kMeta:
        cf = rep_->meta;
        break;
      case StateFamily::kSignatures:
        cf = rep_->signatures;
        break;
      case StateFamily::kWaiting:
        cf = rep_->waiting;
        break;
      case StateFamily::kReleases:
        cf = rep_->releases;
        break;
      case StateFamily::kWindows:
        cf = rep_->windows;
        break;
    }
    if (cf == nullptr) throw std::runtime_error("state: unknown column family in a restored record");
    if (c.value) CheckStatus(b.Put(cf, c.key, *c.value), "restore: put");
  }
  CheckStatus(rep_->db->Write(rocksdb::WriteOptions(), &b), "restore partition " + std::to_string(partition));
}

void StateStore::VisitPartition(int32_t partition, const std::function<bool(const StateChange&)>& fn) const {
  const std::string prefix = PartitionPrefix(partition);
  const std::pair<StateFamily, rocksdb::ColumnFamilyHandle*> prefixed[] = {{StateFamily::kEvents, rep_->events},
                                                                           {StateFamily::kSignatures, rep_->signatures},
                                                                           {StateFamily::kWaiting, rep_->waiting},
                                                                           {StateFamily::kReleases, rep_->releases},
                                                                           {StateFamily::kWindows, rep_->windows}};
  for (const auto& [family, cf] : prefixed) {
    std::unique_ptr<rocksdb::Iterator> it(rep_->db->NewIterator(rocksdb::ReadOptions(), cf));
    for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
      if (!fn(StateChange{family, it->key().ToString(), it->value().ToString()})) return;
    }
    CheckStatus(it->status(), "scan partition " + std::to_string(partition));
  }
  const std::string suffix = "/" + prefix;
  std::unique_ptr<rocksdb::Iterator> it(rep_->db->NewIterator(rocksdb::ReadOptions(), rep_->meta));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (!it->key().ToStringView().ends_with(suffix)) continue;
    if (!fn(StateChange{StateFamily::kMeta, it->key().ToString(), it->value().ToString()})) return;
  }
  CheckStatus(it->status(), "scan meta of partition " + std::to_string(partition));
}

}  // namespace vanon::state
