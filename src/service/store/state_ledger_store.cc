#include "service/store/state_ledger_store.h"

#include <exception>

#include "service/store/share_state.h"

namespace vanon::service {

namespace {
constexpr size_t kEntryBytes = 24;  // dp::EncodeLedgerEntry's fixed size
}  // namespace

bool StateLedgerStore::LoadAll(std::vector<dp::LedgerEntry>* entries, std::string* error) {
  entries_.clear();
  std::optional<std::string> record;
  try {
    record = store_->GetMeta(partition_, kMetaName);
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
  present_ = record.has_value();
  if (record) {
    if (record->size() % kEntryBytes != 0) {
      *error = "state: dp ledger record of partition " + std::to_string(partition_) + " has a bad size";
      return false;
    }
    for (size_t at = 0; at < record->size(); at += kEntryBytes) {
      auto entry = dp::DecodeLedgerEntry(std::string_view(*record).substr(at, kEntryBytes));
      if (!entry) {
        *error = "state: unreadable dp ledger entry in partition " + std::to_string(partition_);
        return false;
      }
      entries_[entry->release_id] = *entry;
    }
  }
  entries->clear();
  for (const auto& [id, entry] : entries_) entries->push_back(entry);
  return true;
}

bool StateLedgerStore::Put(const dp::LedgerEntry& entry, std::string* error) {
  auto previous = entries_.find(entry.release_id);
  const bool existed = previous != entries_.end();
  const dp::LedgerEntry old = existed ? previous->second : dp::LedgerEntry{};
  entries_[entry.release_id] = entry;
  if (Write(error)) return true;
  // Keep the mirror equal to what is durable.
  if (existed) {
    entries_[entry.release_id] = old;
  } else {
    entries_.erase(entry.release_id);
  }
  return false;
}

bool StateLedgerStore::Erase(uint64_t release_id, std::string* error) {
  auto it = entries_.find(release_id);
  if (it == entries_.end()) return true;
  const dp::LedgerEntry old = it->second;
  entries_.erase(it);
  if (Write(error)) return true;
  entries_[release_id] = old;
  return false;
}

std::optional<std::string> StateLedgerStore::Record() const {
  if (!present_) return std::nullopt;
  std::string record;
  record.reserve(entries_.size() * kEntryBytes);
  for (const auto& [id, entry] : entries_) record += dp::EncodeLedgerEntry(entry);
  return record;
}

bool StateLedgerStore::Write(std::string* error) {
  std::string record;
  record.reserve(entries_.size() * kEntryBytes);
  for (const auto& [id, entry] : entries_) record += dp::EncodeLedgerEntry(entry);
  try {
    // The charge must outlive a machine crash: the noisy counts it pays for
    // leave in the transaction that follows, and a lost charge would let a
    // restart draw fresh noise for the same counts.
    store_->CommitMetaNow(partition_, kMetaName, record);
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
  present_ = true;
  return true;
}

}  // namespace vanon::service
