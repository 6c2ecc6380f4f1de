// What StateStore's pieces (ingest writes, release writes, reads) share: the
// open database and one handle per column family.
#ifndef VANON_SRC_STATE_STATE_STORE_REP_H_
#define VANON_SRC_STATE_STATE_STORE_REP_H_

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/status.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "vanon/state/state_store.h"

namespace vanon::state {

struct StateStore::Rep {
  std::unique_ptr<rocksdb::Env> env;  // only with a file system given to Open; outlives db
  std::unique_ptr<rocksdb::DB> db;
  rocksdb::ColumnFamilyHandle* events = nullptr;
  rocksdb::ColumnFamilyHandle* meta = nullptr;
  rocksdb::ColumnFamilyHandle* signatures = nullptr;
  rocksdb::ColumnFamilyHandle* waiting = nullptr;
  rocksdb::ColumnFamilyHandle* releases = nullptr;
  rocksdb::ColumnFamilyHandle* windows = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
};

// Messages name the operation and the partition, never a key: vehicle keys
// are HMACs and must not reach logs.
inline void CheckStatus(const rocksdb::Status& s, const std::string& what) {
  if (!s.ok()) throw std::runtime_error("state: " + what + ": " + s.ToString());
}

}  // namespace vanon::state

namespace rocksdb {
class WriteBatch;
}

namespace vanon::state {
using FamilyHandles = std::vector<std::pair<StateFamily, rocksdb::ColumnFamilyHandle*>>;
// The puts and deletes of a batch, range deletions left out (state_restore.cc).
std::vector<StateChange> CollectChanges(const FamilyHandles& families, const rocksdb::WriteBatch& batch);
}  // namespace vanon::state

#endif  // VANON_SRC_STATE_STATE_STORE_REP_H_
