#include "vanon/dp/value_ids.h"

#include <algorithm>
#include <cstring>

namespace vanon::dp {

// The first and the last eight bytes (fewer: all), and the length.
uint64_t ValueIds::Hash(std::string_view s) {
  uint64_t head = 0, tail = 0;
  if (s.size() >= 8) {
    std::memcpy(&head, s.data(), 8);
    std::memcpy(&tail, s.data() + s.size() - 8, 8);
  } else {
    for (char c : s) head = (head << 8) | static_cast<unsigned char>(c);
  }
  const uint64_t h = (head ^ (tail * 0x9e3779b97f4a7c15ULL) ^ s.size()) * 0xbf58476d1ce4e5b9ULL;
  return h ^ (h >> 31);
}

size_t ValueIds::Field(bool event, std::string_view qi) {
  for (size_t f = 0; f < fields_.size(); ++f) {
    if (fields_[f].event == event && fields_[f].qi == qi) return f;
  }
  fields_.push_back({event, std::string(qi), {}, {}});
  return fields_.size() - 1;
}

void ValueIds::Insert(Values* field, uint32_t id) {
  const uint64_t mask = field->slots.size() - 1;
  uint64_t pos = Hash(field->values[id]) & mask;
  while (field->slots[pos] != 0) pos = (pos + 1) & mask;
  field->slots[pos] = id + 1;
}

uint32_t ValueIds::Intern(size_t f, const std::string& value) {
  const uint32_t known = IdOf(f, value);
  if (known != kOther) return known;
  Values& field = fields_[f];
  const auto id = static_cast<uint32_t>(field.values.size());
  field.values.push_back(value);
  if (2 * field.values.size() > field.slots.size()) {  // at most half full
    field.slots.assign(std::max<size_t>(16, 2 * field.slots.size()), 0);
    for (uint32_t i = 0; i < field.values.size(); ++i) Insert(&field, i);
  } else {
    Insert(&field, id);
  }
  return id;
}

uint32_t ValueIds::IdOf(size_t f, std::string_view value) const {
  const Values& field = fields_[f];
  if (field.slots.empty()) return kOther;
  const uint64_t mask = field.slots.size() - 1;
  for (uint64_t pos = Hash(value) & mask;; pos = (pos + 1) & mask) {
    const uint32_t slot = field.slots[pos];
    if (slot == 0) return kOther;
    if (field.values[slot - 1] == value) return slot - 1;
  }
}

uint32_t ValueIds::Id(size_t f, const DpEvent& e) const {
  const Values& field = fields_[f];
  const std::string* value = field.event ? &e.name : e.Qi(field.qi);
  return value == nullptr ? kMissing : IdOf(f, *value);
}

void ValueIds::Resolve(const DpEvent& e, uint32_t* ids) const {
  for (size_t f = 0; f < fields_.size(); ++f) ids[f] = Id(f, e);
}

void ValueIds::ResolveAll(std::span<const DpEvent> events, ResolvedEvents* out) const {
  out->Reset(fields_.size(), events.size());
  for (size_t k = 0; k < events.size(); ++k) Resolve(events[k], out->Set(k, events[k].ts_ms, events[k].trip));
}

}  // namespace vanon::dp
