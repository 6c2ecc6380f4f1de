#include "vanon/dp/ledger_store.h"

#include "base/coding.h"

namespace vanon::dp {

std::string EncodeLedgerEntry(const LedgerEntry& entry) {
  std::string out;
  out.reserve(24);
  base::PutBigEndian64(&out, entry.release_id);
  base::PutBigEndian64(&out, static_cast<uint64_t>(entry.release_ts_ms));
  base::PutBigEndian64(&out, static_cast<uint64_t>(entry.epsilon_nanos));
  return out;
}

std::optional<LedgerEntry> DecodeLedgerEntry(std::string_view bytes) {
  if (bytes.size() != 24) return std::nullopt;
  LedgerEntry e;
  e.release_id = base::DecodeBigEndian(bytes, 0, 8);
  e.release_ts_ms = static_cast<int64_t>(base::DecodeBigEndian(bytes, 8, 8));
  e.epsilon_nanos = static_cast<int64_t>(base::DecodeBigEndian(bytes, 16, 8));
  if (e.epsilon_nanos < 0) return std::nullopt;
  return e;
}

bool MemoryLedgerStore::LoadAll(std::vector<LedgerEntry>* entries, std::string*) {
  entries->clear();
  for (const auto& [id, e] : entries_) entries->push_back(e);
  return true;
}

bool MemoryLedgerStore::Put(const LedgerEntry& entry, std::string*) {
  entries_[entry.release_id] = entry;
  return true;
}

bool MemoryLedgerStore::Erase(uint64_t release_id, std::string*) {
  entries_.erase(release_id);
  return true;
}

}  // namespace vanon::dp
