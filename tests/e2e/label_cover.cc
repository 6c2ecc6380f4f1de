#include "label_cover.h"

#include <charconv>

namespace vanon::e2e {

namespace {

std::optional<int32_t> ParseInt(std::string_view s) {
  int32_t v = 0;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc() || p != end || s.empty()) return std::nullopt;
  return v;
}

std::optional<engine::Cover> CategoricalCover(const engine::CategoricalHierarchy& h, std::string_view label,
                                              std::span<const int32_t> members) {
  std::optional<engine::Cover> first;
  for (int32_t n = 0; n < h.NodeCount(); ++n) {
    if (h.Name(n) != label) continue;
    const engine::Cover c{h.LeafBegin(n), h.LeafEnd(n) - 1};
    bool covers = true;
    for (int32_t m : members) covers = covers && (m == engine::kUnknownQiCode || (c.lo <= m && m <= c.hi));
    if (covers) return c;
    if (!first) first = c;
  }
  return first;
}

std::optional<engine::Cover> NumericCover(std::string_view label) {
  if (label.size() >= 2 && label.front() == '[' && label.back() == ']') {
    const std::string_view inner = label.substr(1, label.size() - 2);
    const size_t comma = inner.find(',');
    if (comma == std::string_view::npos) return std::nullopt;
    auto lo = ParseInt(inner.substr(0, comma));
    auto hi = ParseInt(inner.substr(comma + 1));
    if (!lo || !hi || *lo > *hi) return std::nullopt;
    return engine::Cover{*lo, *hi};
  }
  auto v = ParseInt(label);
  if (!v) return std::nullopt;
  return engine::Cover{*v, *v};
}

}  // namespace

std::optional<engine::Cover> CoverOfLabel(const engine::QiAttribute& attribute, std::string_view label,
                                          std::span<const int32_t> members) {
  if (attribute.IsCategorical()) return CategoricalCover(*attribute.hierarchy, label, members);
  return NumericCover(label);
}

}  // namespace vanon::e2e
