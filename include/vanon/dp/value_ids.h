// The values a plan's queries read from an event (its name, QIs, the
// sensitive value), interned once per plan. DpRelease resolves each event's
// fields once for all its counters, which then compare small integers: a
// dozen counters had each looked every value up by string, once per
// dimension and filter (a third of the DP counts' CPU, callgrind).
#ifndef VANON_DP_VALUE_IDS_H_
#define VANON_DP_VALUE_IDS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "vanon/dp/event.h"

namespace vanon::dp {

class ValueIds {
 public:
  // The event does not carry the field.
  static constexpr uint32_t kMissing = UINT32_MAX;
  // A value no query names.
  static constexpr uint32_t kOther = UINT32_MAX - 1;

  // The field holding the event's name (no QI can be called this: QI names
  // are identifiers).
  static constexpr const char* kEventField = "(event)";

  // The slot of a field, added when new: kEventField, a QI name, or
  // kSensitiveKey.
  size_t Field(std::string_view name);
  // The id of a value of a field, added when new.
  uint32_t Intern(size_t field, const std::string& value);
  size_t fields() const { return fields_.size(); }

  // ids[f] for every field f: an interned id, kOther or kMissing.
  void Resolve(const DpEvent& e, uint32_t* ids) const;

 private:
  struct Values {
    std::string name;
    std::unordered_map<std::string, uint32_t> ids;
  };
  std::vector<Values> fields_;
};

}  // namespace vanon::dp

#endif  // VANON_DP_VALUE_IDS_H_
