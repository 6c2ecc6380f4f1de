// What a release share needs from the partition's state, and what it gives
// back, as narrow as the share uses them: the share (release_share.cc) and
// the DP publisher read signatures, waiting tuples and meta records through
// ShareState, and return their changes as a ShareDelta value. The release
// runner turns the delta into the share's RocksDB write batch
// (store_share_state.h); a unit test runs the same share over an in-memory
// fake and asserts on the delta itself.
#ifndef VANON_SRC_SERVICE_STORE_SHARE_STATE_H_
#define VANON_SRC_SERVICE_STORE_SHARE_STATE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "vanon/engine/release.h"
#include "vanon/engine/value_window.h"
#include "vanon/state/release_state.h"

namespace vanon::service {

class ShareState {
 public:
  using SignatureVisitor = std::function<bool(std::string_view vehicle, const state::StoredSignature&)>;
  using WindowVisitor = std::function<bool(std::string_view vehicle, const engine::ValueWindow&)>;

  virtual ~ShareState() = default;

  virtual std::optional<std::string> GetMeta(int32_t partition, std::string_view name) const = 0;
  // One result per vehicle key, in the same order.
  virtual std::vector<std::optional<state::StoredSignature>> GetSignatures(
      int32_t partition, const std::vector<std::string>& vehicles) const = 0;
  // In vehicle key order; fn returns false to stop.
  virtual void ScanSignatures(int32_t partition, const SignatureVisitor& fn) const = 0;
  // Value windows of vehicles (sensitive.window_epochs, carry, histories),
  // as GetSignatures and ScanSignatures.
  virtual std::vector<std::optional<engine::ValueWindow>> GetWindows(
      int32_t partition, const std::vector<std::string>& vehicles) const = 0;
  virtual void ScanWindows(int32_t partition, const WindowVisitor& fn) const = 0;
  // Sorted by vehicle key (without the events they own: a share gets those
  // from the partition's EventBuffer).
  virtual std::vector<engine::WaitingTuple> LoadWaiting(int32_t partition) const = 0;
  // Whether the events family holds an event of the partition older than
  // ts_ms (StateStore::HasEventsBefore): then a share tombstones the older
  // events it is handed, whichever record held them.
  virtual bool HasEventsBefore(int32_t partition, int64_t ts_ms) const = 0;
  // Writes one meta record at once, durable against a machine crash (not
  // part of any delta): a DP ledger charge or the aggregation's read end
  // must outlive the transaction that publishes what they pay for.
  virtual void CommitMetaNow(int32_t partition, std::string_view name, std::string_view value) = 0;
};

// A share's state changes, in order: applied to a write batch, a later
// operation wins over an earlier one on the same key (the epoch's events go
// with one range deletion, the kept ones are put back after it).
struct ShareDelta {
  struct DeleteEventRange {
    int64_t from_ms = 0, to_ms = 0;  // from_ms <= ts < to_ms
  };
  struct DeleteEvent {
    int64_t ts_ms = 0, offset = 0;
  };
  struct PutEvent {
    int64_t ts_ms = 0, offset = 0;
    std::string encoded;  // EncodeBufferedEvent
  };
  struct PutSignature {
    std::string vehicle;
    state::StoredSignature signature;
  };
  struct DeleteSignature {
    std::string vehicle;
  };
  struct PutWaiting {
    engine::WaitingTuple waiting;             // keyed by waiting.tuple.vehicle
    std::vector<state::WaitingEvent> events;  // stored inside the record
  };
  struct DeleteWaiting {
    std::string vehicle;
  };
  struct PutWindow {
    std::string vehicle;
    engine::ValueWindow window;
  };
  struct DeleteWindow {
    std::string vehicle;
  };
  struct PutMeta {
    std::string name, value;
  };
  struct DeleteMeta {  // a point delete: the changelog carries it as a tombstone
    std::string name;
  };
  using Op = std::variant<DeleteEventRange, DeleteEvent, PutEvent, PutSignature, DeleteSignature, PutWaiting,
                          DeleteWaiting, PutWindow, DeleteWindow, PutMeta, DeleteMeta>;
  // A share's ops run to one per waiting tuple: were an op's move allowed to
  // throw, `ops` would copy every op (events, windows) each time it grows.
  static_assert(std::is_nothrow_move_constructible_v<Op>);

  int32_t partition = 0;
  std::vector<Op> ops;

  template <typename T>
  void Add(T op) {
    ops.emplace_back(std::move(op));
  }
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_STORE_SHARE_STATE_H_
