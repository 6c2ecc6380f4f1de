#include "vanon/release/sensitive_dictionary.h"

#include "base/coding.h"

namespace vanon::release {

SensitiveDictionary::SensitiveDictionary(const engine::CategoricalHierarchy* hierarchy) {
  if (hierarchy == nullptr) return;
  for (int32_t leaf = 0; leaf < hierarchy->LeafCount(); ++leaf) {
    Intern(hierarchy->Name(hierarchy->LeafNode(leaf)));
  }
}

engine::SensitiveId SensitiveDictionary::Intern(std::string_view value) {
  auto it = ids_.find(value);
  if (it != ids_.end()) return it->second;
  const auto id = static_cast<engine::SensitiveId>(values_.size());
  values_.emplace_back(value);
  ids_.emplace(std::string(value), id);
  return id;
}

std::optional<engine::SensitiveId> SensitiveDictionary::Find(std::string_view value) const {
  auto it = ids_.find(value);
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

std::string SensitiveDictionary::EncodeState() const {
  std::string out;
  base::PutFixed64(&out, values_.size());
  for (const std::string& v : values_) {
    base::PutFixed64(&out, v.size());
    out += v;
  }
  return out;
}

bool SensitiveDictionary::DecodeState(std::string_view data) {
  SensitiveDictionary d;
  if (data.size() < 8) return false;
  const uint64_t n = base::DecodeFixed64(data.data());
  size_t pos = 8;
  for (uint64_t i = 0; i < n; ++i) {
    if (data.size() - pos < 8) return false;
    const uint64_t len = base::DecodeFixed64(data.data() + pos);
    pos += 8;
    if (len > data.size() - pos) return false;
    const std::string_view v = data.substr(pos, len);
    pos += len;
    if (d.Intern(v) != i) return false;  // duplicate
  }
  if (pos != data.size()) return false;
  *this = std::move(d);
  return true;
}

}  // namespace vanon::release
