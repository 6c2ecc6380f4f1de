// The per-event input of the DP counts: what the service knows about one raw
// event once the VIN is replaced by a keyed hash and the QIs are decoded.

#ifndef VANON_DP_EVENT_H_
#define VANON_DP_EVENT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vanon::dp {

inline constexpr const char* kSensitiveKey = "(sensitive)";

struct DpEvent {
  std::string vehicle;  // keyed hash of the VIN, never the VIN itself
  std::string trip;     // trip id (or its keyed hash)
  std::string name;     // event name, e.g. "touchscreen_used"
  int64_t ts_ms = 0;    // event time, ms since the Unix epoch
  // (QI name, value) pairs. Values are used as given: the caller generalizes
  // them to the level a query counts at before handing the event over.
  // The event's raw sensitive value, when it carries one, is the pair named
  // kSensitiveKey (which no QI name can be: QI names are identifiers).
  std::vector<std::pair<std::string, std::string>> qi;

  // Value of QI `name`, or nullptr when the event does not carry it.
  const std::string* Qi(std::string_view name) const;
};

}  // namespace vanon::dp

#endif  // VANON_DP_EVENT_H_
