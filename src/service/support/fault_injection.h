// Crash tests kill the process at named points of the release loop with
// kill -9 semantics (no destructor, no flush), to prove that a restart
// recovers from every one of them. Set VANON_FAULT_POINT=<name> (first hit)
// or <name>@<n> (n-th hit); a ":hang" suffix stops the thread that reaches
// the point for good instead (for the stall checks of /healthz).
//
// Built only with the CMake option VANON_FAULT_POINTS (development and CI
// builds); without it, as in the image, every point is an empty inline
// function and the environment variable is never read.
#ifndef VANON_SRC_SERVICE_SUPPORT_FAULT_INJECTION_H_
#define VANON_SRC_SERVICE_SUPPORT_FAULT_INJECTION_H_

#include <string_view>

namespace vanon::service {

// The points, in the order a batch passes them (docs/release.md says what
// each proves).
inline constexpr std::string_view kFaultPoints[] = {
    "ingest.after_batch",     // an ingest batch written to local state
    "release.after_prepare",  // seed stored, nothing published
    "release.mid_produce",    // half of the records on the broker, transaction open
    "release.before_commit",  // every record on the broker, transaction open
    // A share's changelog records on the broker before its own records,
    // transaction open: what a broker without transaction markers shows when
    // a kill lands between the two (their order on the wire is not the
    // order they were produced in).
    "release.changelog_first",
    "release.after_commit",    // transaction committed, state not applied
    "release.after_apply",     // state applied
    "dp.after_global_charge",  // a global DP window charged, its records not produced
    "changelog.mid_seed",      // a seed of the changelog from local state: a prefix committed
};

#ifdef VANON_FAULT_POINTS

// Raises SIGKILL (or hangs) when `name` is the configured point and its hit
// count is reached. Logs one line to stderr first so test logs show where.
void FaultPoint(std::string_view name);

// True when VANON_FAULT_POINT is set. The release loop then flushes records
// to the broker before a point inside a transaction, so that "records on the
// broker, transaction open" is the state the kill really leaves behind.
bool FaultInjectionEnabled();

// True when VANON_FAULT_POINT names `name` (any hit count): for points that
// need the release loop to take another path to the state they leave.
bool FaultPointIs(std::string_view name);

// While alive (and VANON_FAULT_POINT set), a kill at a point on another
// thread waits: the release loop holds one around producing a share's
// records and flushing them, so that a kill elsewhere never leaves part of a
// share on the broker. On a real broker an open transaction's records stay
// hidden whatever reached it; librdkafka's mock shows them all, in the order
// they arrived, which is not the order they were produced in (a summary
// without its DP counts would look committed without them). Kills at the
// release loop's own points inside it go ahead.
class ShareDeliveryHold {
 public:
  ShareDeliveryHold();
  ~ShareDeliveryHold();
  ShareDeliveryHold(const ShareDeliveryHold&) = delete;
  ShareDeliveryHold& operator=(const ShareDeliveryHold&) = delete;

 private:
  bool held_ = false;
};

// Test hook (in-process service tests; never set in production): the next
// `n` release shares are corrupted after the engine computed them (a group
// member published twice), for ReleaseChecker to catch before anything of
// them is produced.
void CorruptNextSharesForTesting(int n);
// True (and one fewer left) when a share is to be corrupted.
bool TakeShareCorruption();

#else  // !VANON_FAULT_POINTS: nothing to inject. CorruptNextSharesForTesting
       // is not declared, so a test that needs it cannot be built by mistake.

inline void FaultPoint(std::string_view) {}
inline constexpr bool FaultInjectionEnabled() { return false; }
inline constexpr bool FaultPointIs(std::string_view) { return false; }
struct ShareDeliveryHold {};
inline constexpr bool TakeShareCorruption() { return false; }

#endif  // VANON_FAULT_POINTS

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_SUPPORT_FAULT_INJECTION_H_
