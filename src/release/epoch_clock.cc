#include "vanon/release/epoch_clock.h"

#include <limits>
#include <stdexcept>

#include "base/coding.h"

namespace vanon::release {

namespace {

constexpr uint8_t kStateVersion = 1;
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// Event times come from validated input, but state may come from disk: never
// let the arithmetic overflow.
int64_t SatSub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return b > 0 ? kMin : kMax;
  return r;
}
int64_t SatAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? kMax : kMin;
  return r;
}

}  // namespace

EpochClock::EpochClock(const config::EpochConfig& config)
    : length_ms_(config.length_seconds * 1000),
      lateness_ms_(config.allowed_lateness_seconds * 1000),
      idle_timeout_ms_(config.idle_timeout_seconds * 1000),
      watermark_(kMin) {
  if (length_ms_ <= 0 || lateness_ms_ < 0 || idle_timeout_ms_ <= 0) {
    throw std::invalid_argument("EpochClock: epoch length and idle timeout must be > 0");
  }
}

int64_t EpochClock::EpochOf(int64_t ts_ms) const {
  int64_t q = ts_ms / length_ms_;
  if (ts_ms % length_ms_ < 0) --q;
  return q;
}

Arrival EpochClock::Observe(int64_t ts_ms, int64_t wall_ms) {
  const int64_t epoch = EpochOf(ts_ms);
  // This also covers closed epochs: an epoch closes only once the watermark
  // has reached its end, and so has reached the end of every earlier one.
  if (EpochEnd(epoch) <= watermark_) return Arrival::kLate;
  // Before the first close, an out-of-order event may open an earlier epoch.
  if (!next_open_ || epoch < *next_open_) next_open_ = epoch;
  if (!seen_event_ || ts_ms > max_ts_) max_ts_ = ts_ms;
  seen_event_ = true;
  last_event_wall_ = wall_ms;
  Raise(SatSub(max_ts_, lateness_ms_));
  return Arrival::kOnTime;
}

void EpochClock::AdvanceIdle(int64_t wall_ms) {
  if (!seen_event_ && start_wait_since_ && SatSub(wall_ms, *start_wait_since_) >= idle_timeout_ms_) {
    Observe(*start_wait_since_, *start_wait_since_);
  }
  if (!seen_event_) return;
  const int64_t idle = SatSub(wall_ms, last_event_wall_);
  if (idle < idle_timeout_ms_) return;
  Raise(SatSub(SatAdd(max_ts_, idle), lateness_ms_));
}

void EpochClock::Resume(int64_t wall_ms) {
  if (seen_event_ && wall_ms > last_event_wall_) last_event_wall_ = wall_ms;
}

void EpochClock::StartWithoutEvents(int64_t wall_ms) {
  if (seen_event_ || next_open_) return;
  start_wait_since_ = wall_ms;
}

std::optional<int64_t> EpochClock::NextClosable() const {
  if (!next_open_ || EpochEnd(*next_open_) > watermark_) return std::nullopt;
  return next_open_;
}

std::optional<int64_t> EpochClock::NextPrecomputable() const {
  if (!next_open_ || NextClosable()) return std::nullopt;
  // Saturating: a stored watermark may be anywhere in int64.
  if (EpochEnd(*next_open_) > SatAdd(watermark_, lateness_ms_)) return std::nullopt;
  return next_open_;
}

void EpochClock::Close(int64_t epoch) {
  if (NextClosable() != epoch) throw std::logic_error("EpochClock::Close: not the next closable epoch");
  next_open_ = epoch + 1;
}

std::string EpochClock::EncodeState() const {
  std::string out;
  out.push_back(static_cast<char>(kStateVersion));
  uint8_t flags = (seen_event_ ? 1 : 0) | (next_open_ ? 2 : 0);
  out.push_back(static_cast<char>(flags));
  base::PutFixed64(&out, static_cast<uint64_t>(max_ts_));
  base::PutFixed64(&out, static_cast<uint64_t>(last_event_wall_));
  base::PutFixed64(&out, static_cast<uint64_t>(watermark_));
  base::PutFixed64(&out, static_cast<uint64_t>(next_open_.value_or(0)));
  return out;
}

bool EpochClock::DecodeState(std::string_view data) {
  if (data.size() != 2 + 4 * 8 || static_cast<uint8_t>(data[0]) != kStateVersion) return false;
  const uint8_t flags = static_cast<uint8_t>(data[1]);
  if (flags > 3) return false;
  const char* p = data.data() + 2;
  const int64_t next = static_cast<int64_t>(base::DecodeFixed64(p + 24));
  // The record may be damaged or crafted (it also travels through the state
  // changelog): a next epoch whose start or end does not fit int64 would
  // overflow EpochStart/EpochEnd, which every use of the clock computes.
  if ((flags & 2) != 0 && (next < kMin / length_ms_ || next > kMax / length_ms_ - 1)) return false;
  seen_event_ = (flags & 1) != 0;
  max_ts_ = static_cast<int64_t>(base::DecodeFixed64(p));
  last_event_wall_ = static_cast<int64_t>(base::DecodeFixed64(p + 8));
  watermark_ = static_cast<int64_t>(base::DecodeFixed64(p + 16));
  next_open_ = (flags & 2) ? std::optional<int64_t>(next) : std::nullopt;
  return true;
}

}  // namespace vanon::release

namespace vanon::release {

void EpochClock::RewindToFirstOpen() {
  if (!next_open_) return;
  const int64_t start = EpochStart(*next_open_);
  if (watermark_ > start) watermark_ = start;
  if (seen_event_ && max_ts_ > SatAdd(start, lateness_ms_)) max_ts_ = SatAdd(start, lateness_ms_);
}

}  // namespace vanon::release
