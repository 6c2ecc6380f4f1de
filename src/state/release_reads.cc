// StateStore's reads of the release loop's column families. A record that
// does not decode is corrupt state: it throws rather than being skipped, so a
// vehicle never silently loses its fixed signature. Messages carry the
// partition (and release id) only, never a vehicle key.
#include <rocksdb/db.h>

#include <algorithm>
#include <string>
#include <utility>

#include "key_codec.h"
#include "state_store_rep.h"

namespace vanon::state {

namespace {
[[noreturn]] void ThrowCorrupt(const char* what, int32_t partition) {
  throw std::runtime_error(std::string("state: corrupt ") + what + " in partition " + std::to_string(partition));
}

// Visits the keys of one partition in key order. The upper bound stops
// RocksDB at the next partition instead of walking into its data (or its
// deletion tombstones).
template <typename Fn>
void ScanPartition(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, int32_t partition, const char* what, Fn&& fn) {
  const std::string prefix = PartitionPrefix(partition);
  const uint32_t next = static_cast<uint32_t>(partition) + 1;  // 0 after the last partition: no bound
  const std::string upper = PartitionPrefix(static_cast<int32_t>(next));
  const rocksdb::Slice upper_slice(upper);
  rocksdb::ReadOptions ro;
  if (next != 0) ro.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(ro, cf));
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    std::string_view key = it->key().ToStringView();
    if (!fn(key.substr(prefix.size()), it->value().ToStringView())) break;
  }
  CheckStatus(it->status(), std::string("scan ") + what + " of partition " + std::to_string(partition));
}

// One MultiGet of vehicle records; decode(value) returns nullopt for a
// corrupt record.
template <typename T, typename Decode>
std::vector<std::optional<T>> GetVehicleRecords(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, int32_t partition,
                                                const std::vector<std::string>& vehicles, const char* what,
                                                Decode&& decode) {
  std::vector<std::optional<T>> out(vehicles.size());
  if (vehicles.empty()) return out;
  std::vector<std::string> keys;
  keys.reserve(vehicles.size());
  for (const std::string& v : vehicles) keys.push_back(VehicleKey(partition, v));
  std::vector<rocksdb::Slice> slices(keys.begin(), keys.end());
  std::vector<rocksdb::PinnableSlice> values(keys.size());
  std::vector<rocksdb::Status> statuses(keys.size());
  // Callers pass vehicles in key order (a share's tuples are sorted by
  // vehicle): telling RocksDB so spares it a sort through its comparator,
  // which cost as much as the lookups themselves.
  const bool sorted = std::is_sorted(keys.begin(), keys.end());
  db->MultiGet(rocksdb::ReadOptions(), cf, slices.size(), slices.data(), values.data(), statuses.data(), sorted);
  for (size_t i = 0; i < keys.size(); ++i) {
    if (statuses[i].IsNotFound()) continue;
    CheckStatus(statuses[i], std::string("read ") + what + "s of partition " + std::to_string(partition));
    out[i] = decode(values[i].ToStringView());
    if (!out[i]) ThrowCorrupt(what, partition);
  }
  return out;
}

}  // namespace

std::vector<std::optional<StoredSignature>> StateStore::GetSignatures(int32_t partition,
                                                                      const std::vector<std::string>& vehicles) const {
  return GetVehicleRecords<StoredSignature>(rep_->db.get(), rep_->signatures, partition, vehicles, "signature",
                                            [](std::string_view v) { return StoredSignature::Decode(v); });
}

std::vector<std::optional<engine::ValueWindow>> StateStore::GetWindows(int32_t partition,
                                                                       const std::vector<std::string>& vehicles) const {
  return GetVehicleRecords<engine::ValueWindow>(rep_->db.get(), rep_->windows, partition, vehicles, "value window",
                                                [](std::string_view v) { return DecodeValueWindow(v); });
}

void StateStore::ScanWindows(int32_t partition,
                             const std::function<bool(std::string_view, const engine::ValueWindow&)>& fn) const {
  ScanPartition(rep_->db.get(), rep_->windows, partition, "value windows",
                [&](std::string_view vehicle, std::string_view value) {
                  auto w = DecodeValueWindow(value);
                  if (!w) ThrowCorrupt("value window", partition);
                  return fn(vehicle, *w);
                });
}

void StateStore::ScanSignatures(int32_t partition,
                                const std::function<bool(std::string_view, const StoredSignature&)>& fn) const {
  ScanPartition(rep_->db.get(), rep_->signatures, partition, "signatures",
                [&](std::string_view vehicle, std::string_view value) {
                  auto s = StoredSignature::Decode(value);
                  if (!s) ThrowCorrupt("signature", partition);
                  return fn(vehicle, *s);
                });
}

std::vector<engine::WaitingTuple> StateStore::LoadWaiting(int32_t partition) const {
  std::vector<engine::WaitingTuple> out;
  ScanPartition(rep_->db.get(), rep_->waiting, partition, "waiting tuples",
                [&](std::string_view vehicle, std::string_view value) {
                  auto w = DecodeWaitingTuple(vehicle, value);
                  if (!w) ThrowCorrupt("waiting tuple", partition);
                  out.push_back(std::move(*w));
                  return true;
                });
  return out;
}

void StateStore::ScanWaitingEvents(int32_t partition,
                                   const std::function<void(int64_t, int64_t, std::string_view)>& fn) const {
  std::vector<WaitingEvent> events;
  ScanPartition(rep_->db.get(), rep_->waiting, partition, "waiting tuples",
                [&](std::string_view vehicle, std::string_view value) {
                  if (!DecodeWaitingTuple(vehicle, value, &events)) ThrowCorrupt("waiting tuple", partition);
                  for (const WaitingEvent& e : events) fn(e.ts_ms, e.offset, e.encoded);
                  return true;
                });
}

std::optional<ReleaseLogEntry> StateStore::GetRelease(int32_t partition, int64_t release) const {
  std::string v;
  rocksdb::Status st = rep_->db->Get(rocksdb::ReadOptions(), rep_->releases, ReleaseKey(partition, release), &v);
  if (st.IsNotFound()) return std::nullopt;
  CheckStatus(st, "read release log of partition " + std::to_string(partition));
  auto e = ReleaseLogEntry::Decode(v);
  if (!e) ThrowCorrupt(("release log entry " + std::to_string(release)).c_str(), partition);
  return e;
}

void StateStore::ScanReleasesNewestFirst(int32_t partition,
                                         const std::function<bool(int64_t, const ReleaseLogEntry&)>& fn) const {
  const std::string prefix = PartitionPrefix(partition);
  const rocksdb::Slice lower(prefix);  // stops Prev() at the previous partition
  rocksdb::ReadOptions ro;
  ro.iterate_lower_bound = &lower;
  std::unique_ptr<rocksdb::Iterator> it(rep_->db->NewIterator(ro, rep_->releases));
  // The largest possible key of the partition: release INT64_MAX.
  for (it->SeekForPrev(ReleaseKey(partition, INT64_MAX)); it->Valid() && it->key().starts_with(prefix); it->Prev()) {
    int64_t release;
    if (!DecodeReleaseKey(it->key().ToStringView(), &release)) ThrowCorrupt("release log key", partition);
    auto e = ReleaseLogEntry::Decode(it->value().ToStringView());
    if (!e) ThrowCorrupt(("release log entry " + std::to_string(release)).c_str(), partition);
    if (!fn(release, *e)) break;
  }
  CheckStatus(it->status(), "scan release log of partition " + std::to_string(partition));
}

}  // namespace vanon::state
