#include "vanon/dp/rocksdb_ledger_store.h"

#include <rocksdb/db.h>
#include <rocksdb/options.h>

namespace vanon::dp {

std::unique_ptr<RocksDbLedgerStore> RocksDbLedgerStore::Open(const std::string& path,
                                                             std::string* error) {
  rocksdb::Options options;
  options.create_if_missing = true;
  rocksdb::DB* db = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(options, path, &db);
  if (!s.ok()) {
    *error = "dp ledger: cannot open " + path + ": " + s.ToString();
    return nullptr;
  }
  auto store = std::make_unique<RocksDbLedgerStore>(db, kDefaultPrefix);
  store->owned_.reset(db);
  return store;
}

RocksDbLedgerStore::RocksDbLedgerStore(rocksdb::DB* db, std::string prefix)
    : db_(db), prefix_(std::move(prefix)) {}

RocksDbLedgerStore::~RocksDbLedgerStore() = default;

std::string RocksDbLedgerStore::Key(uint64_t release_id) const {
  std::string key = prefix_;
  for (int shift = 56; shift >= 0; shift -= 8) key.push_back(static_cast<char>((release_id >> shift) & 0xff));
  return key;
}

bool RocksDbLedgerStore::LoadAll(std::vector<LedgerEntry>* entries, std::string* error) {
  entries->clear();
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
  for (it->Seek(prefix_); it->Valid() && it->key().starts_with(prefix_); it->Next()) {
    auto entry = DecodeLedgerEntry(std::string_view(it->value().data(), it->value().size()));
    if (!entry || Key(entry->release_id) != it->key().ToString()) {
      *error = "dp ledger: corrupt entry under " + prefix_;
      return false;
    }
    entries->push_back(*entry);
  }
  if (!it->status().ok()) {
    *error = "dp ledger: " + it->status().ToString();
    return false;
  }
  return true;
}

bool RocksDbLedgerStore::Put(const LedgerEntry& entry, std::string* error) {
  rocksdb::WriteOptions options;
  options.sync = true;
  rocksdb::Status s = db_->Put(options, Key(entry.release_id), EncodeLedgerEntry(entry));
  if (!s.ok()) *error = "dp ledger: " + s.ToString();
  return s.ok();
}

bool RocksDbLedgerStore::Erase(uint64_t release_id, std::string* error) {
  rocksdb::WriteOptions options;
  options.sync = true;
  rocksdb::Status s = db_->Delete(options, Key(release_id));
  if (!s.ok()) *error = "dp ledger: " + s.ToString();
  return s.ok();
}

}  // namespace vanon::dp
