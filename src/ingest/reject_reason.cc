#include "vanon/ingest/reject_reason.h"

namespace vanon::ingest {

std::string_view RejectReasonName(RejectReason reason) {
  switch (reason) {
    case RejectReason::kBrokenJson:
      return "broken_json";
    case RejectReason::kMissingField:
      return "missing_field";
    case RejectReason::kWrongType:
      return "wrong_type";
    case RejectReason::kInvalidVin:
      return "invalid_vin";
    case RejectReason::kTimestampOutOfRange:
      return "timestamp_out_of_range";
    case RejectReason::kTooLarge:
      return "too_large";
    case RejectReason::kInvalidUtf8:
      return "invalid_utf8";
    case RejectReason::kTooDeep:
      return "too_deep";
    case RejectReason::kMissingKey:
      return "missing_key";
  }
  return "unknown";  // unreachable for valid enumerators
}

}  // namespace vanon::ingest
