// LedgerStore on RocksDB (target vanon_dp_store). Every entry is one key
// "<prefix><release id, 8 bytes big-endian>" holding EncodeLedgerEntry();
// writes are synced, so an acknowledged spend survives a crash or restart.

#ifndef VANON_DP_ROCKSDB_LEDGER_STORE_H_
#define VANON_DP_ROCKSDB_LEDGER_STORE_H_

#include <memory>
#include <string>

#include "vanon/dp/ledger_store.h"

namespace rocksdb {
class DB;
}

namespace vanon::dp {

class RocksDbLedgerStore final : public LedgerStore {
 public:
  // Opens (creating if needed) a database of its own at `path`.
  static std::unique_ptr<RocksDbLedgerStore> Open(const std::string& path, std::string* error);

  // Uses a database the caller owns (the service's state DB), keys under
  // `prefix` (e.g. "dp/ledger/p3/" to scope the ledger by input partition).
  RocksDbLedgerStore(rocksdb::DB* db, std::string prefix);
  ~RocksDbLedgerStore() override;

  bool LoadAll(std::vector<LedgerEntry>* entries, std::string* error) override;
  bool Put(const LedgerEntry& entry, std::string* error) override;
  bool Erase(uint64_t release_id, std::string* error) override;

  static constexpr const char* kDefaultPrefix = "dp/ledger/";

 private:
  std::string Key(uint64_t release_id) const;

  std::unique_ptr<rocksdb::DB> owned_;
  rocksdb::DB* db_;
  std::string prefix_;
};

}  // namespace vanon::dp

#endif  // VANON_DP_ROCKSDB_LEDGER_STORE_H_
