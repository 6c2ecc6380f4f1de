#include "vanon/dp/event.h"

namespace vanon::dp {

const std::string* DpEvent::Qi(std::string_view name) const {
  for (const auto& [k, v] : qi) {
    if (k == name) return &v;
  }
  return nullptr;
}

}  // namespace vanon::dp
