// Where the budget ledger keeps its entries. The pure library ships an
// in-memory store; the service keeps them in its RocksDB state
// (StateLedgerStore, `dp_ledger` in docs/state.md) so that a restart cannot
// hand out budget again.

#ifndef VANON_DP_LEDGER_STORE_H_
#define VANON_DP_LEDGER_STORE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vanon::dp {

// One release's spend. release_ts_ms is the release's own timestamp (its
// epoch end), so the rolling window follows event time, not wall time.
struct LedgerEntry {
  uint64_t release_id = 0;
  int64_t release_ts_ms = 0;
  int64_t epsilon_nanos = 0;

  friend bool operator==(const LedgerEntry&, const LedgerEntry&) = default;
};

// Fixed 24-byte big-endian encoding, shared by stores that persist entries
// (and by a service that wants to put an entry into its own write batch).
std::string EncodeLedgerEntry(const LedgerEntry& entry);
std::optional<LedgerEntry> DecodeLedgerEntry(std::string_view bytes);

class LedgerStore {
 public:
  virtual ~LedgerStore() = default;
  // Each call returns false and sets *error on failure. Put must be durable
  // when it returns true: the spend is recorded before noise is published.
  virtual bool LoadAll(std::vector<LedgerEntry>* entries, std::string* error) = 0;
  virtual bool Put(const LedgerEntry& entry, std::string* error) = 0;
  virtual bool Erase(uint64_t release_id, std::string* error) = 0;
};

class MemoryLedgerStore final : public LedgerStore {
 public:
  bool LoadAll(std::vector<LedgerEntry>* entries, std::string* error) override;
  bool Put(const LedgerEntry& entry, std::string* error) override;
  bool Erase(uint64_t release_id, std::string* error) override;

 private:
  std::map<uint64_t, LedgerEntry> entries_;
};

}  // namespace vanon::dp

#endif  // VANON_DP_LEDGER_STORE_H_
