#include "vanon/state/release_state.h"

#include <algorithm>

#include "base/coding.h"

namespace vanon::state {

namespace {
// Format versions: bump when a layout changes, and keep decoding the old one.
constexpr uint8_t kSignatureV1 = 1;
constexpr uint8_t kWaitingV1 = 1;
// v2 = v1 + [event count >= 1][per event: ts zigzag, offset zigzag, bytes
// length-prefixed]; a tuple without events keeps its v1 bytes.
constexpr uint8_t kWaitingV2 = 2;
constexpr uint8_t kReleaseLogV1 = 1;
// v2 = v1 + [OffsetSet], written only for an entry with epoch_offsets, so
// every other entry keeps its v1 bytes.
constexpr uint8_t kReleaseLogV2 = 2;
constexpr uint8_t kWindowV1 = 1;

void PutCounts(std::string* out, const std::vector<engine::ValueCount>& counts) {
  base::PutVarint64(out, counts.size());
  for (const engine::ValueCount& c : counts) {
    base::PutVarint64(out, c.value);
    base::PutVarint64(out, c.count);
  }
}

bool GetCounts(base::ByteReader* r, std::vector<engine::ValueCount>* counts) {
  uint32_t n;
  if (!r->GetCount(&n)) return false;
  counts->resize(n);
  for (engine::ValueCount& c : *counts) {
    if (!r->GetVarint32(&c.value) || !r->GetVarint32(&c.count)) return false;
  }
  return true;
}
}  // namespace

// [v1][advanced][last_epoch][0 | 1 last][n][n x (epoch, counts)][history
// counts]; counts = [k][k x (value, count)].
std::string EncodeValueWindow(const engine::ValueWindow& w) {
  const engine::ValueWindow::Parts p = w.parts();
  std::string out;
  out.push_back(static_cast<char>(kWindowV1));
  base::PutVarint64(&out, p.advanced);
  base::PutVarint64(&out, p.last_epoch);
  out.push_back(static_cast<char>(p.last ? 1 : 0));
  if (p.last) base::PutVarint64(&out, *p.last);
  base::PutVarint64(&out, p.epochs.size());
  for (const auto& [epoch, counts] : p.epochs) {
    base::PutVarint64(&out, epoch);
    PutCounts(&out, counts);
  }
  PutCounts(&out, p.history);
  return out;
}

std::optional<engine::ValueWindow> DecodeValueWindow(std::string_view bytes) {
  base::ByteReader r(bytes);
  uint8_t version, has_last;
  engine::ValueWindow::Parts p;
  if (!r.GetByte(&version) || version != kWindowV1) return std::nullopt;
  if (!r.GetVarint64(&p.advanced) || !r.GetVarint64(&p.last_epoch) || !r.GetByte(&has_last) || has_last > 1) {
    return std::nullopt;
  }
  if (has_last) {
    engine::SensitiveId last;
    if (!r.GetVarint32(&last)) return std::nullopt;
    p.last = last;
  }
  uint32_t n;
  if (!r.GetCount(&n)) return std::nullopt;
  p.epochs.resize(n);
  for (auto& [epoch, counts] : p.epochs) {
    if (!r.GetVarint64(&epoch) || !GetCounts(&r, &counts)) return std::nullopt;
  }
  // Epochs increase and none lies after the last Advance.
  for (size_t i = 0; i < p.epochs.size(); ++i) {
    if ((i > 0 && p.epochs[i].first <= p.epochs[i - 1].first) || p.epochs[i].first > p.advanced) return std::nullopt;
  }
  if (!GetCounts(&r, &p.history) || !r.done()) return std::nullopt;
  return engine::ValueWindow::FromParts(std::move(p));
}

OffsetSet OffsetSet::Of(const std::vector<int64_t>& offsets) {
  OffsetSet s;
  if (offsets.empty()) return s;
  const auto [lo, hi] = std::minmax_element(offsets.begin(), offsets.end());
  s.base_ = *lo;
  s.bits_.assign(static_cast<size_t>(*hi - *lo) + 1, false);
  for (int64_t o : offsets) {
    auto bit = s.bits_[static_cast<size_t>(o - s.base_)];
    if (!bit) ++s.count_;
    bit = true;
  }
  return s;
}

bool OffsetSet::Contains(int64_t offset) const {
  if (offset < base_) return false;
  const uint64_t i = static_cast<uint64_t>(offset - base_);
  return i < bits_.size() && bits_[i];
}

// [base zigzag][bitmap length][bitmap: bit i (LSB first) = base + i]. The
// bitmap ends with its last set bit's byte; the base bit is set unless empty.
void OffsetSet::EncodeTo(std::string* out) const {
  base::PutSignedVarint64(out, base_);
  std::string bitmap((bits_.size() + 7) / 8, '\0');
  for (size_t i = 0; i < bits_.size(); ++i) {
    if (bits_[i]) bitmap[i / 8] = static_cast<char>(static_cast<uint8_t>(bitmap[i / 8]) | (1u << (i % 8)));
  }
  base::PutLengthPrefixed(out, bitmap);
}

std::optional<OffsetSet> OffsetSet::DecodeFront(std::string_view* in) {
  OffsetSet s;
  std::string_view bitmap;
  if (!base::GetSignedVarint64(in, &s.base_) || !base::GetLengthPrefixed(in, &bitmap)) return std::nullopt;
  s.bits_.resize(bitmap.size() * 8);
  for (size_t i = 0; i < s.bits_.size(); ++i) {
    s.bits_[i] = (static_cast<uint8_t>(bitmap[i / 8]) >> (i % 8)) & 1u;
    if (s.bits_[i]) ++s.count_;
  }
  while (!s.bits_.empty() && !s.bits_.back()) s.bits_.pop_back();
  // Canonical only (so that equal sets compare equal): no trailing zero
  // byte, and the base is a member of a non-empty set.
  if (s.bits_.size() + 8 <= bitmap.size() * 8) return std::nullopt;
  if (s.count_ > 0 ? !s.bits_.front() : s.base_ != 0) return std::nullopt;
  return s;
}

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

// [v1|v2][first_release][n][n qi codes zigzag][sensitive][events]
// v2 only: [k][k x (ts zigzag, offset zigzag, length, bytes)].
std::string EncodeWaitingTuple(const engine::WaitingTuple& w, const std::vector<WaitingEvent>& events) {
  size_t bytes = 1 + 10 + 5 + w.tuple.qi.size() * 2 + 10 + 5;
  for (const WaitingEvent& e : events) bytes += 25 + e.encoded.size();
  std::string out;
  out.reserve(bytes);
  out.push_back(static_cast<char>(events.empty() ? kWaitingV1 : kWaitingV2));
  base::PutVarint64(&out, w.first_release);
  base::PutVarint64(&out, w.tuple.qi.size());
  for (int32_t code : w.tuple.qi) base::PutSignedVarint64(&out, code);
  base::PutVarint64(&out, w.tuple.sensitive);
  base::PutVarint64(&out, w.tuple.events);
  if (events.empty()) return out;
  base::PutVarint64(&out, events.size());
  for (const WaitingEvent& e : events) {
    base::PutSignedVarint64(&out, e.ts_ms);
    base::PutSignedVarint64(&out, e.offset);
    base::PutLengthPrefixed(&out, e.encoded);
  }
  return out;
}

namespace {
bool GetWaitingEvents(base::ByteReader* r, std::vector<WaitingEvent>* events) {
  uint32_t k;
  // v2 only with events: a record without is v1 (one encoding per tuple).
  if (!r->GetCount(&k) || k == 0) return false;
  if (events) events->reserve(k);
  for (uint32_t i = 0; i < k; ++i) {
    int64_t ts, offset;
    std::string_view encoded;
    if (!r->GetSignedVarint64(&ts) || !r->GetSignedVarint64(&offset) || !r->GetLengthPrefixed(&encoded)) {
      return false;
    }
    if (events) events->push_back({ts, offset, std::string(encoded)});
  }
  return true;
}
}  // namespace

std::optional<engine::WaitingTuple> DecodeWaitingTuple(std::string_view vehicle, std::string_view bytes,
                                                       std::vector<WaitingEvent>* events) {
  base::ByteReader r(bytes);
  uint8_t version;
  if (!r.GetByte(&version) || (version != kWaitingV1 && version != kWaitingV2)) return std::nullopt;
  engine::WaitingTuple w;
  uint32_t n;
  if (!r.GetVarint64(&w.first_release) || !r.GetCount(&n)) return std::nullopt;
  w.tuple.qi.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    if (!r.GetSignedVarint32(&w.tuple.qi[i])) return std::nullopt;
  }
  if (!r.GetVarint32(&w.tuple.sensitive) || !r.GetVarint32(&w.tuple.events)) return std::nullopt;
  if (events) events->clear();
  if (version == kWaitingV2 && !GetWaitingEvents(&r, events)) return std::nullopt;
  if (!r.done()) return std::nullopt;
  w.tuple.vehicle.assign(vehicle);
  return w;
}

// [v1|v2][status][seed 32 B][readback partition zigzag][readback offset zigzag]
// [prepared ms zigzag][committed ms zigzag][summary length][summary]
// v2 only (epoch_offsets set): [epoch_offsets (OffsetSet::EncodeTo)].
std::string ReleaseLogEntry::Encode() const {
  std::string out;
  out.reserve(3 + seed.size() + 4 * 10 + 5 + summary.size());
  out.push_back(static_cast<char>(epoch_offsets ? kReleaseLogV2 : kReleaseLogV1));
  out.push_back(static_cast<char>(status));
  out.append(reinterpret_cast<const char*>(seed.data()), seed.size());
  base::PutSignedVarint64(&out, readback_partition);
  base::PutSignedVarint64(&out, readback_offset);
  base::PutSignedVarint64(&out, prepared_wall_ms);
  base::PutSignedVarint64(&out, committed_wall_ms);
  base::PutLengthPrefixed(&out, summary);
  if (epoch_offsets) epoch_offsets->EncodeTo(&out);
  return out;
}

namespace {

// The v2 tail of a release-log entry: false if malformed.
bool DecodeEpochOffsets(std::string_view rest, std::optional<OffsetSet>* offsets) {
  *offsets = OffsetSet::DecodeFront(&rest);
  return offsets->has_value() && rest.empty();
}

}  // namespace

std::optional<ReleaseLogEntry> ReleaseLogEntry::Decode(std::string_view bytes) {
  base::ByteReader r(bytes);
  uint8_t version, status;
  if (!r.GetByte(&version) || (version != kReleaseLogV1 && version != kReleaseLogV2) || !r.GetByte(&status)) {
    return std::nullopt;
  }
  if (status != static_cast<uint8_t>(ReleaseStatus::kPrepared) &&
      status != static_cast<uint8_t>(ReleaseStatus::kCommitted)) {
    return std::nullopt;
  }
  ReleaseLogEntry e;
  e.status = static_cast<ReleaseStatus>(status);
  std::string_view seed, summary;
  if (!r.GetBytes(e.seed.size(), &seed) || !r.GetSignedVarint32(&e.readback_partition) ||
      !r.GetSignedVarint64(&e.readback_offset) || !r.GetSignedVarint64(&e.prepared_wall_ms) ||
      !r.GetSignedVarint64(&e.committed_wall_ms) || !r.GetLengthPrefixed(&summary)) {
    return std::nullopt;
  }
  if (version == kReleaseLogV1 ? !r.done() : !DecodeEpochOffsets(r.Rest(), &e.epoch_offsets)) return std::nullopt;
  for (size_t i = 0; i < e.seed.size(); ++i) e.seed[i] = static_cast<uint8_t>(seed[i]);
  e.summary.assign(summary);
  return e;
}

}  // namespace vanon::state
