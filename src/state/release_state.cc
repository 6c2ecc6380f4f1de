#include "vanon/state/release_state.h"

#include "base/coding.h"

namespace vanon::state {

namespace {
// Format versions: bump when a layout changes, and keep decoding the old one.
constexpr uint8_t kSignatureV1 = 1;
constexpr uint8_t kWaitingV1 = 1;
constexpr uint8_t kReleaseLogV1 = 1;
}  // namespace

// [v1][first_release zigzag][last_release zigzag][n][n ids, strictly increasing]
std::string StoredSignature::Encode() const {
  std::string out;
  out.reserve(3 + 2 * 10 + values.size() * 2);
  out.push_back(static_cast<char>(kSignatureV1));
  base::PutSignedVarint64(&out, first_release);
  base::PutSignedVarint64(&out, last_release);
  base::PutVarint64(&out, values.size());
  for (engine::SensitiveId id : values) base::PutVarint64(&out, id);
  return out;
}

std::optional<StoredSignature> StoredSignature::Decode(std::string_view bytes) {
  base::ByteReader r(bytes);
  uint8_t version;
  if (!r.GetByte(&version) || version != kSignatureV1) return std::nullopt;
  StoredSignature s;
  uint32_t n;
  if (!r.GetSignedVarint64(&s.first_release) || !r.GetSignedVarint64(&s.last_release) || !r.GetCount(&n)) {
    return std::nullopt;
  }
  s.values.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    engine::SensitiveId id;
    if (!r.GetVarint32(&id)) return std::nullopt;
    // A signature is a set: the engine relies on sorted, duplicate-free ids.
    if (!s.values.empty() && id <= s.values.back()) return std::nullopt;
    s.values.push_back(id);
  }
  if (!r.done()) return std::nullopt;
  return s;
}

// [v1][first_release][n][n qi codes zigzag][sensitive][events]
std::string EncodeWaitingTuple(const engine::WaitingTuple& w) {
  std::string out;
  out.reserve(1 + 10 + 5 + w.tuple.qi.size() * 2 + 10);
  out.push_back(static_cast<char>(kWaitingV1));
  base::PutVarint64(&out, w.first_release);
  base::PutVarint64(&out, w.tuple.qi.size());
  for (int32_t code : w.tuple.qi) base::PutSignedVarint64(&out, code);
  base::PutVarint64(&out, w.tuple.sensitive);
  base::PutVarint64(&out, w.tuple.events);
  return out;
}

std::optional<engine::WaitingTuple> DecodeWaitingTuple(std::string_view vehicle, std::string_view bytes) {
  base::ByteReader r(bytes);
  uint8_t version;
  if (!r.GetByte(&version) || version != kWaitingV1) return std::nullopt;
  engine::WaitingTuple w;
  uint32_t n;
  if (!r.GetVarint64(&w.first_release) || !r.GetCount(&n)) return std::nullopt;
  w.tuple.qi.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    if (!r.GetSignedVarint32(&w.tuple.qi[i])) return std::nullopt;
  }
  if (!r.GetVarint32(&w.tuple.sensitive) || !r.GetVarint32(&w.tuple.events) || !r.done()) {
    return std::nullopt;
  }
  w.tuple.vehicle.assign(vehicle);
  return w;
}

// [v1][status][seed 32 B][readback partition zigzag][readback offset zigzag]
// [prepared ms zigzag][committed ms zigzag][summary length][summary]
std::string ReleaseLogEntry::Encode() const {
  std::string out;
  out.reserve(2 + seed.size() + 4 * 10 + 5 + summary.size());
  out.push_back(static_cast<char>(kReleaseLogV1));
  out.push_back(static_cast<char>(status));
  out.append(reinterpret_cast<const char*>(seed.data()), seed.size());
  base::PutSignedVarint64(&out, readback_partition);
  base::PutSignedVarint64(&out, readback_offset);
  base::PutSignedVarint64(&out, prepared_wall_ms);
  base::PutSignedVarint64(&out, committed_wall_ms);
  base::PutLengthPrefixed(&out, summary);
  return out;
}

std::optional<ReleaseLogEntry> ReleaseLogEntry::Decode(std::string_view bytes) {
  base::ByteReader r(bytes);
  uint8_t version, status;
  if (!r.GetByte(&version) || version != kReleaseLogV1 || !r.GetByte(&status)) return std::nullopt;
  if (status != static_cast<uint8_t>(ReleaseStatus::kPrepared) &&
      status != static_cast<uint8_t>(ReleaseStatus::kCommitted)) {
    return std::nullopt;
  }
  ReleaseLogEntry e;
  e.status = static_cast<ReleaseStatus>(status);
  std::string_view seed, summary;
  if (!r.GetBytes(e.seed.size(), &seed) || !r.GetSignedVarint32(&e.readback_partition) ||
      !r.GetSignedVarint64(&e.readback_offset) || !r.GetSignedVarint64(&e.prepared_wall_ms) ||
      !r.GetSignedVarint64(&e.committed_wall_ms) || !r.GetLengthPrefixed(&summary) || !r.done()) {
    return std::nullopt;
  }
  for (size_t i = 0; i < e.seed.size(); ++i) e.seed[i] = static_cast<uint8_t>(seed[i]);
  e.summary.assign(summary);
  return e;
}

}  // namespace vanon::state
