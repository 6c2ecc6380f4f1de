// ReleaseLogEntry::Decode: the `releases` value of the state (a release's
// status, seed, readback position, summary and, for a prepared entry of
// format 2, the input offsets its share took). A restart and a restore
// from the changelog decide what to recompute from it. Input: one value.
//
// Invariants: what decodes is the one canonical encoding of what it decoded
// to; the offset set holds exactly as many offsets as it says.
#include "fuzz_support.h"
#include "fuzz_targets.h"
#include "vanon/state/release_state.h"

namespace vanon::fuzz {

bool CheckReleaseLogEntry(std::string_view value) {
  const std::optional<state::ReleaseLogEntry> e = state::ReleaseLogEntry::Decode(value);
  if (!e) return false;
  Check(e->status == state::ReleaseStatus::kPrepared || e->status == state::ReleaseStatus::kCommitted,
        "a release-log entry has an unknown status");
  Check(e->Encode() == value, "a release-log entry is not its canonical encoding");
  if (e->epoch_offsets) {
    Check(e->epoch_offsets->size() <= 8 * value.size(), "an offset set counts more offsets than it has bits");
    Check(!e->epoch_offsets->Contains(INT64_MIN) || e->epoch_offsets->size() > 0, "an empty set contains an offset");
  }
  return true;
}

void FuzzReleaseLog(std::string_view input) { CheckReleaseLogEntry(input); }

}  // namespace vanon::fuzz
