#include "vanon/dp/value_ids.h"

#include <cstring>

namespace vanon::dp {

// The first and the last eight bytes (fewer: all), and the length.
size_t ValueIds::Hash::operator()(std::string_view s) const {
  uint64_t head = 0, tail = 0;
  if (s.size() >= 8) {
    std::memcpy(&head, s.data(), 8);
    std::memcpy(&tail, s.data() + s.size() - 8, 8);
  } else {
    for (char c : s) head = (head << 8) | static_cast<unsigned char>(c);
  }
  uint64_t h = (head ^ (tail * 0x9e3779b97f4a7c15ULL) ^ s.size()) * 0xbf58476d1ce4e5b9ULL;
  return static_cast<size_t>(h ^ (h >> 31));
}

size_t ValueIds::Field(bool event, std::string_view qi) {
  for (size_t f = 0; f < fields_.size(); ++f) {
    if (fields_[f].event == event && fields_[f].qi == qi) return f;
  }
  fields_.push_back({event, std::string(qi), {}});
  return fields_.size() - 1;
}

uint32_t ValueIds::Intern(size_t field, const std::string& value) {
  auto& ids = fields_[field].ids;
  return ids.try_emplace(value, static_cast<uint32_t>(ids.size())).first->second;
}

uint32_t ValueIds::IdOf(size_t f, std::string_view value) const {
  const auto& ids = fields_[f].ids;
  auto it = ids.find(value);
  return it == ids.end() ? kOther : it->second;
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
