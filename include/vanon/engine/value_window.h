// A vehicle's sensitive value over a sliding window of epochs.
//
// privacy-model.md section 2 derives one value per vehicle per release with an
// aggregator. Over one epoch, `mode` follows every chance track a driver
// plays, and under m-invariance each such flip out of the vehicle's fixed
// signature suppresses it (docs/utility.md). The window takes the mode over
// the last N epochs instead, so the value moves when behaviour moves. The
// caller keeps one ValueWindow per vehicle in state, keyed by the vehicle's
// HMAC, and advances it once per epoch whether or not the vehicle is
// published. Pure: no I/O.
#ifndef VANON_ENGINE_VALUE_WINDOW_H_
#define VANON_ENGINE_VALUE_WINDOW_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "vanon/engine/release.h"

namespace vanon::engine {

// What a vehicle without the field in its whole window gets.
enum class MissingPolicy {
  // The configured missing value (or ineligible without one): today's rule.
  // Under m-invariance the missing value is rarely in the vehicle's
  // signature, so an epoch without media events suppresses it.
  kMissingValue,
  // The vehicle's last value, for at most `carry_epochs` epochs; then as
  // kMissingValue. The vehicle keeps its own value instead of colliding with
  // its signature.
  kCarry,
};

struct WindowParams {
  uint32_t epochs = 1;  // 1 = the epoch alone (the `mode` aggregator)
  MissingPolicy missing = MissingPolicy::kMissingValue;
  std::optional<SensitiveId> missing_value;
  uint32_t carry_epochs = 0;
  uint32_t history_values = 8;  // distinct values the history keeps
};

class ValueWindow {
 public:
  // Adds one epoch's event counts per value (empty: no event of the epoch
  // carried the field; the vehicle may still be active) and returns the
  // vehicle's value for that epoch, or nullopt when it has none (ineligible).
  // Epochs must not decrease. The mode breaks ties in favour of the previous
  // value, then the smaller id, so the value changes only when another value
  // is strictly more frequent in the window.
  std::optional<SensitiveId> Advance(uint64_t epoch, const std::vector<ValueCount>& counts, const WindowParams& params);

  // Events per value over every epoch advanced so far (not only the
  // window), most frequent first (ties: smaller id), at most
  // `history_values` values; all counts halve whenever one reaches 256, so
  // old behaviour fades. The values a vehicle plays besides its current
  // favourite are the ones it is likely to take next: Tuple::history.
  const std::vector<ValueCount>& history() const { return history_; }

  // The epoch of the last Advance (0 before the first).
  uint64_t advanced() const { return advanced_; }

  // True when every value id held is below `n`: a window read back from
  // state names values of a dictionary of that size.
  bool IdsBelow(size_t n) const;

  // Everything a window holds, so the caller can store it (the service
  // encodes it in state/release_state.h) and rebuild an equal window.
  struct Parts {
    std::vector<std::pair<uint64_t, std::vector<ValueCount>>> epochs;  // oldest first
    std::vector<ValueCount> history;
    std::optional<SensitiveId> last;
    uint64_t last_epoch = 0;
    uint64_t advanced = 0;
    bool operator==(const Parts&) const = default;
  };
  Parts parts() const;
  static ValueWindow FromParts(Parts parts);

 private:
  // A vector, not a deque: a window holds a few epochs, and a deque's move
  // may throw, which made every vector of windows (or of state changes
  // holding one) copy all its elements whenever it grew.
  std::vector<std::pair<uint64_t, std::vector<ValueCount>>> epochs_;  // oldest first
  std::vector<ValueCount> history_;
  std::optional<SensitiveId> last_;
  uint64_t last_epoch_ = 0;  // epoch in which last_ came from events
  uint64_t advanced_ = 0;
};

}  // namespace vanon::engine

#endif  // VANON_ENGINE_VALUE_WINDOW_H_
