// What the release loop keeps per input partition besides buffered events:
// vehicles' fixed signatures, tuples waiting for a later release, and a log
// of releases (prepared: seed stored, maybe being published; committed:
// visible downstream, state applied). Encodings are versioned and decoding
// never trusts its input (nullopt on anything malformed).
#ifndef VANON_STATE_RELEASE_STATE_H_
#define VANON_STATE_RELEASE_STATE_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vanon/engine/release.h"
#include "vanon/engine/value_window.h"

namespace vanon::state {

struct StoredSignature {
  engine::Signature values;  // sorted sensitive ids (SensitiveDictionary of the partition)
  int64_t first_release = 0;
  // A release that published the vehicle, at most horizon/64 releases before
  // its last one (refreshed only when that stale: service/share/release_share.cc).
  int64_t last_release = 0;

  std::string Encode() const;
  static std::optional<StoredSignature> Decode(std::string_view bytes);
  friend bool operator==(const StoredSignature&, const StoredSignature&) = default;
};

// A vehicle's value window (windowed mode, carried value, event history:
// engine::ValueWindow), stored in the `windows` family under the vehicle's
// HMAC. Values are ids of the partition's SensitiveDictionary.
std::string EncodeValueWindow(const engine::ValueWindow& w);
std::optional<engine::ValueWindow> DecodeValueWindow(std::string_view bytes);

// A buffered event a waiting tuple owns, kept inside its waiting record
// (EncodeBufferedEvent bytes, without the sensitive field) under the state
// key it would have in the events family.
struct WaitingEvent {
  int64_t ts_ms = 0;
  int64_t offset = 0;
  std::string encoded;
  friend bool operator==(const WaitingEvent&, const WaitingEvent&) = default;
};

// Tuple::vehicle is not part of the value (it is the key). A record with
// events is one changelog record for the whole tuple; one without (the
// format before events moved in, or a tuple whose events are too large for
// one record: kMaxWaitingEventBytes) leaves them in the events family.
std::string EncodeWaitingTuple(const engine::WaitingTuple& w, const std::vector<WaitingEvent>& events = {});
// `events` (optional) receives the record's events; any record is checked
// whole either way.
std::optional<engine::WaitingTuple> DecodeWaitingTuple(std::string_view vehicle, std::string_view bytes,
                                                       std::vector<WaitingEvent>* events = nullptr);
// Event bytes one waiting record may carry: well under the 1 MB a Kafka
// record may have by default, so that the changelog can always take it.
inline constexpr size_t kMaxWaitingEventBytes = 256 * 1024;

// A set of input offsets of one partition: a base offset and a bitmap over
// [base, base + bits.size()). Compact for the offsets one epoch's events
// take in a partition (mostly consecutive runs).
class OffsetSet {
 public:
  OffsetSet() = default;
  // Any order, duplicates allowed.
  static OffsetSet Of(const std::vector<int64_t>& offsets);

  bool Contains(int64_t offset) const;
  size_t size() const { return count_; }

  void EncodeTo(std::string* out) const;
  // Reads one encoded set from the front of *in and advances it.
  static std::optional<OffsetSet> DecodeFront(std::string_view* in);
  friend bool operator==(const OffsetSet&, const OffsetSet&) = default;

 private:
  int64_t base_ = 0;
  std::vector<bool> bits_;
  size_t count_ = 0;
};

enum class ReleaseStatus : uint8_t { kPrepared = 1, kCommitted = 2 };

struct ReleaseLogEntry {
  ReleaseStatus status = ReleaseStatus::kPrepared;
  std::array<uint8_t, 32> seed{};  // every random value of the release comes from it
  // Where to look for this release's summary after a crash: the partition of
  // the releases topic it is written to and that partition's end offset
  // before the transaction began.
  int32_t readback_partition = 0;
  int64_t readback_offset = 0;
  int64_t prepared_wall_ms = 0;
  int64_t committed_wall_ms = 0;  // kCommitted only
  std::string summary;            // kCommitted only: the summary record (JSON)
  // kPrepared only, written since format v2: the input offsets of the events
  // of this epoch the share took from memory (older epochs' events come from
  // state). A restart classifies the re-read events of the epoch by it, so
  // that the recomputation takes exactly these (docs/release.md, "After a
  // crash"). nullopt: an entry of the older format.
  std::optional<OffsetSet> epoch_offsets;

  std::string Encode() const;
  static std::optional<ReleaseLogEntry> Decode(std::string_view bytes);
  friend bool operator==(const ReleaseLogEntry&, const ReleaseLogEntry&) = default;
};

}  // namespace vanon::state

#endif  // VANON_STATE_RELEASE_STATE_H_
