// The values queries read from an event (its name, QIs, the sensitive
// value), interned. Counters compare small integers rather than strings, and
// DpRelease resolves each event's fields once for all its counters, which
// share the plan's ValueIds: a dozen counters had each looked every value up
// by string, once per dimension and filter (a third of the DP counts' CPU,
// callgrind). A counter standing alone has a ValueIds of its own.
//
// Events reach the counters resolved (ResolvedEvents): from DpEvents here,
// or from whatever the caller holds through FieldIsEventName/FieldQi and
// IdOf, so that a service need not write its events out as strings first
// (converting every buffered event to a DpEvent was a quarter of the DP
// counts' CPU, callgrind).
#ifndef VANON_DP_VALUE_IDS_H_
#define VANON_DP_VALUE_IDS_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vanon/dp/event.h"

namespace vanon::dp {

// One vehicle's events as the counters bound to a ValueIds read them: per
// event the ids of its fields, its time and its trip. Meant to be reused
// from vehicle to vehicle: the vectors keep their capacity.
class ResolvedEvents {
 public:
  // Makes room for `n` events of `stride` fields (ValueIds::fields()), each
  // to be Set.
  void Reset(size_t stride, size_t n) {
    stride_ = stride;
    ids_.resize(n * stride);
    ts_ms_.resize(n);
    trips_.resize(n);
  }
  // Sets event k's time and trip and returns its stride() field ids, to be
  // filled. The trip's bytes must outlive the counting of the events.
  uint32_t* Set(size_t k, int64_t ts_ms, std::string_view trip) {
    ts_ms_[k] = ts_ms;
    trips_[k] = trip;
    return ids_.data() + k * stride_;
  }

  size_t size() const { return ts_ms_.size(); }
  size_t stride() const { return stride_; }
  // The ids of event k's fields: ids(k)[f] for field f.
  const uint32_t* ids(size_t k) const { return ids_.data() + k * stride_; }
  int64_t ts_ms(size_t k) const { return ts_ms_[k]; }
  std::string_view trip(size_t k) const { return trips_[k]; }

 private:
  size_t stride_ = 0;
  std::vector<uint32_t> ids_;
  std::vector<int64_t> ts_ms_;
  std::vector<std::string_view> trips_;
};

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

  // What field f reads: the event's name, else the QI FieldQi(f).
  bool FieldIsEventName(size_t f) const { return fields_[f].event; }
  const std::string& FieldQi(size_t f) const { return fields_[f].qi; }
  // The id of `value` as field f's value: interned, else kOther.
  uint32_t IdOf(size_t f, std::string_view value) const;

  // The id of the event's value of `field`: interned, kOther or kMissing.
  uint32_t Id(size_t field, const DpEvent& e) const;
  // ids[f] = Id(f, e) for every field f.
  void Resolve(const DpEvent& e, uint32_t* ids) const;
  // The events, resolved; their trips stay in `events`.
  void ResolveAll(std::span<const DpEvent> events, ResolvedEvents* out) const;

 private:
  // A field's values by id, and a table of open addressing over them: every
  // event's name is looked up, by string_view (not copied to be found). The
  // hash reads the length and at most 16 bytes (value_ids.cc): a table holds
  // only the few values a plan names, so a weak hash costs at most a scan of
  // those. (std::unordered_map compared a value with each of up to 20 keys.)
  struct Values {
    bool event;                       // the event's name, else
    std::string qi;                   // this QI's value
    std::vector<std::string> values;  // by id
    std::vector<uint32_t> slots;      // id + 1, 0 when empty; a power of two
  };
  static uint64_t Hash(std::string_view s);
  static void Insert(Values* field, uint32_t id);
  size_t Field(bool event, std::string_view qi);

  std::vector<Values> fields_;
};

}  // namespace vanon::dp

#endif  // VANON_DP_VALUE_IDS_H_
