// A dp::LedgerStore over the service's state (ShareState): one partition's ledger is
// one meta record ("dp_ledger", EncodeLedgerEntry() entries back to back).
//
// One record rather than a key per entry because StateStore meta records are
// point lookups, and the ledger stays small: entries leave it when they leave
// the rolling window, and no more than budget / per-release epsilon entries
// (100 with the defaults) fit in a window. Every Put or Erase commits the
// whole record at once, durable before the noise it pays for is published.
#ifndef VANON_SRC_SERVICE_STORE_STATE_LEDGER_STORE_H_
#define VANON_SRC_SERVICE_STORE_STATE_LEDGER_STORE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "vanon/dp/ledger_store.h"
#include "service/store/record_names.h"

namespace vanon::service {

class ShareState;

class StateLedgerStore final : public dp::LedgerStore {
 public:
  static constexpr const char* kMetaName = kDpLedgerMeta;  // record_names.h

  StateLedgerStore(ShareState* store, int32_t partition) : store_(store), partition_(partition) {}

  bool LoadAll(std::vector<dp::LedgerEntry>* entries, std::string* error) override;
  bool Put(const dp::LedgerEntry& entry, std::string* error) override;
  bool Erase(uint64_t release_id, std::string* error) override;

  // The record as this object last read or wrote it (nullopt: there is
  // none): what state holds, without reading it back.
  std::optional<std::string> Record() const;

 private:
  bool Write(std::string* error);

  ShareState* store_;
  int32_t partition_;
  std::map<uint64_t, dp::LedgerEntry> entries_;  // mirror of the record
  bool present_ = false;                         // state holds the record
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_STORE_STATE_LEDGER_STORE_H_
