// ReleaseWrite: the release loop's atomic unit, a WriteBatch over the
// events, meta, signatures, waiting, releases and windows column families.
#include <rocksdb/write_batch.h>

#include "key_codec.h"
#include "state_store_rep.h"

namespace vanon::state {

namespace {
rocksdb::Slice ToSlice(std::string_view s) { return rocksdb::Slice(s.data(), s.size()); }
}  // namespace

struct ReleaseWrite::Rep {
  rocksdb::WriteBatch batch;
  const StateStore::Rep* store;
};

ReleaseWrite::ReleaseWrite(const StateStore& store) : rep_(std::make_unique<Rep>()) { rep_->store = store.rep_.get(); }
ReleaseWrite::~ReleaseWrite() = default;

void ReleaseWrite::DeleteEvent(int32_t partition, int64_t ts_ms, int64_t offset) {
  CheckStatus(rep_->batch.Delete(rep_->store->events, EventKey(partition, ts_ms, offset)), "batch delete");
}

void ReleaseWrite::DeleteEventRange(int32_t partition, int64_t from_ms, int64_t to_ms) {
  // Event keys sort by (partition, ts, offset) and offsets are >= 0.
  CheckStatus(
      rep_->batch.DeleteRange(rep_->store->events, EventKey(partition, from_ms, 0), EventKey(partition, to_ms, 0)),
      "batch delete range");
}

void ReleaseWrite::PutEvent(int32_t partition, int64_t ts_ms, int64_t offset, std::string_view encoded) {
  CheckStatus(rep_->batch.Put(rep_->store->events, EventKey(partition, ts_ms, offset), ToSlice(encoded)), "batch put");
}

void ReleaseWrite::PutSignature(int32_t partition, std::string_view vehicle, const StoredSignature& s) {
  CheckStatus(rep_->batch.Put(rep_->store->signatures, VehicleKey(partition, vehicle), s.Encode()), "batch put");
}

void ReleaseWrite::DeleteSignature(int32_t partition, std::string_view vehicle) {
  CheckStatus(rep_->batch.Delete(rep_->store->signatures, VehicleKey(partition, vehicle)), "batch delete");
}

void ReleaseWrite::PutWaiting(int32_t partition, const engine::WaitingTuple& w,
                              const std::vector<WaitingEvent>& events) {
  CheckStatus(
      rep_->batch.Put(rep_->store->waiting, VehicleKey(partition, w.tuple.vehicle), EncodeWaitingTuple(w, events)),
      "batch put");
}

void ReleaseWrite::DeleteWaiting(int32_t partition, std::string_view vehicle) {
  CheckStatus(rep_->batch.Delete(rep_->store->waiting, VehicleKey(partition, vehicle)), "batch delete");
}

void ReleaseWrite::PutWindow(int32_t partition, std::string_view vehicle, const engine::ValueWindow& w) {
  CheckStatus(rep_->batch.Put(rep_->store->windows, VehicleKey(partition, vehicle), EncodeValueWindow(w)), "batch put");
}

void ReleaseWrite::DeleteWindow(int32_t partition, std::string_view vehicle) {
  CheckStatus(rep_->batch.Delete(rep_->store->windows, VehicleKey(partition, vehicle)), "batch delete");
}

void ReleaseWrite::PutRelease(int32_t partition, int64_t release, const ReleaseLogEntry& e) {
  CheckStatus(rep_->batch.Put(rep_->store->releases, ReleaseKey(partition, release), e.Encode()), "batch put");
}

void ReleaseWrite::DeleteRelease(int32_t partition, int64_t release) {
  CheckStatus(rep_->batch.Delete(rep_->store->releases, ReleaseKey(partition, release)), "batch delete");
}

void ReleaseWrite::PutMeta(int32_t partition, std::string_view name, std::string_view value) {
  CheckStatus(rep_->batch.Put(rep_->store->meta, MetaKey(partition, name), ToSlice(value)), "batch put");
}

void ReleaseWrite::DeleteMeta(int32_t partition, std::string_view name) {
  CheckStatus(rep_->batch.Delete(rep_->store->meta, MetaKey(partition, name)), "batch delete");
}

void ReleaseWrite::SetProgress(int32_t partition, const PartitionProgress& p) {
  CheckStatus(rep_->batch.Put(rep_->store->meta, MetaKey(partition, "progress"), p.Encode()), "batch put");
}

// By default the same durability as the ingest commit: WAL on, not fsynced
// per write. kMachineCrash fsyncs the WAL (and with it every earlier write)
// before returning. The batch is cleared only after a successful write, so a
// failed commit can be retried with the same ReleaseWrite.
void StateStore::Commit(ReleaseWrite& w, Durability durability) {
  rocksdb::WriteBatch& b = w.rep_->batch;
  rocksdb::WriteOptions wo;
  wo.sync = durability == Durability::kMachineCrash;
  CheckStatus(rep_->db->Write(wo, &b), "write release batch");
  b.Clear();
}

}  // namespace vanon::state

namespace vanon::state {
std::vector<StateChange> ReleaseWrite::Changes() const {
  const StateStore::Rep& r = *rep_->store;
  return CollectChanges({{StateFamily::kEvents, r.events},
                         {StateFamily::kMeta, r.meta},
                         {StateFamily::kSignatures, r.signatures},
                         {StateFamily::kWaiting, r.waiting},
                         {StateFamily::kReleases, r.releases},
                         {StateFamily::kWindows, r.windows}},
                        rep_->batch);
}
}  // namespace vanon::state
