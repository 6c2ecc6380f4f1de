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

#include "vanon/engine/release.h"

namespace vanon::state {

struct StoredSignature {
  engine::Signature values;  // sorted sensitive ids (SensitiveDictionary of the partition)
  int64_t first_release = 0;
  // A release that published the vehicle, at most horizon/64 releases before
  // its last one (refreshed only when that stale: service/release_share.cc).
  int64_t last_release = 0;

  std::string Encode() const;
  static std::optional<StoredSignature> Decode(std::string_view bytes);
  friend bool operator==(const StoredSignature&, const StoredSignature&) = default;
};

// Tuple::vehicle is not part of the value (it is the key).
std::string EncodeWaitingTuple(const engine::WaitingTuple& w);
std::optional<engine::WaitingTuple> DecodeWaitingTuple(std::string_view vehicle, std::string_view bytes);

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

  std::string Encode() const;
  static std::optional<ReleaseLogEntry> Decode(std::string_view bytes);
  friend bool operator==(const ReleaseLogEntry&, const ReleaseLogEntry&) = default;
};

}  // namespace vanon::state

#endif  // VANON_STATE_RELEASE_STATE_H_
