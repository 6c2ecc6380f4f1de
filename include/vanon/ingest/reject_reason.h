// Why an input message was refused. The names are part of the public
// contract: they are the `reason` label of vanon_events_rejected_total
// (docs/metrics.md) and the reason header of DLQ records, so never rename
// one; add new reasons at the end.

#ifndef VANON_INGEST_REJECT_REASON_H_
#define VANON_INGEST_REJECT_REASON_H_

#include <array>
#include <string_view>

namespace vanon::ingest {

enum class RejectReason {
  kBrokenJson,
  kMissingField,
  kWrongType,
  kInvalidVin,
  kTimestampOutOfRange,
  kTooLarge,
  kInvalidUtf8,
  kTooDeep,
  kMissingKey,
};

// Every reason, so that metrics can pre-create one series per reason.
inline constexpr std::array<RejectReason, 9> kAllRejectReasons = {
    RejectReason::kBrokenJson,          RejectReason::kMissingField,
    RejectReason::kWrongType,           RejectReason::kInvalidVin,
    RejectReason::kTimestampOutOfRange, RejectReason::kTooLarge,
    RejectReason::kInvalidUtf8,         RejectReason::kTooDeep,
    RejectReason::kMissingKey,
};

// "broken_json", "missing_field", ... (snake_case, stable).
std::string_view RejectReasonName(RejectReason reason);

}  // namespace vanon::ingest

#endif  // VANON_INGEST_REJECT_REASON_H_
