// The values queries read from an event (its name, QIs, the sensitive
// value), interned. Counters compare small integers rather than strings, and
// DpRelease resolves each event's fields once for all its counters, which
// share the plan's ValueIds: a dozen counters had each looked every value up
// by string, once per dimension and filter (a third of the DP counts' CPU,
// callgrind). A counter standing alone has a ValueIds of its own.
#ifndef VANON_DP_VALUE_IDS_H_
#define VANON_DP_VALUE_IDS_H_

#include <cstddef>
#include <cstdint>
#include <span>
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

  // The slot of a field, added when new: the event's name, or the QI
  // `name` (kSensitiveKey for the sensitive value). Kept apart, so that no
  // QI name, however spelt, reads the event's name.
  size_t EventField() { return Field(true, ""); }
  size_t QiField(std::string_view name) { return Field(false, name); }
  // The id of a value of a field, added when new.
  uint32_t Intern(size_t field, const std::string& value);
  size_t fields() const { return fields_.size(); }

  // The id of the event's value of `field`: interned, kOther or kMissing.
  uint32_t Id(size_t field, const DpEvent& e) const;
  // ids[f] = Id(f, e) for every field f.
  void Resolve(const DpEvent& e, uint32_t* ids) const;
  // The fields of every event, for the resolved-id entry points of the
  // counters bound here: (*ids)[k * fields() + f] = Id(f, events[k]).
  void ResolveAll(std::span<const DpEvent> events, std::vector<uint32_t>* ids) const;

 private:
  struct Values {
    bool event;      // the event's name, else
    std::string qi;  // this QI's value
    std::unordered_map<std::string, uint32_t> ids;
  };
  size_t Field(bool event, std::string_view qi);

  std::vector<Values> fields_;
};

}  // namespace vanon::dp

#endif  // VANON_DP_VALUE_IDS_H_
