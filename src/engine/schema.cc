#include "vanon/engine/schema.h"

#include <algorithm>
#include <charconv>

namespace vanon {

std::optional<int32_t> Schema::Encode(size_t attr, std::string_view raw) const {
  const QiAttribute& a = attributes_[attr];
  if (a.IsCategorical()) return a.hierarchy->LeafId(raw);
  int32_t v = 0;
  auto [ptr, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), v);
  if (ec != std::errc() || ptr != raw.data() + raw.size()) return std::nullopt;
  if (!IsValidCode(attr, v)) return std::nullopt;
  return v;
}

bool Schema::IsValidCode(size_t attr, int32_t code) const {
  const QiAttribute& a = attributes_[attr];
  if (a.IsCategorical()) return code >= 0 && code < a.hierarchy->LeafCount();
  return code >= a.numeric.min && code <= a.numeric.max;
}

Cover Schema::Generalize(size_t attr, int32_t lo, int32_t hi) const {
  const QiAttribute& a = attributes_[attr];
  if (a.IsCategorical()) {
    const CategoricalHierarchy& h = *a.hierarchy;
    const int32_t node = h.LowestCommonNode(lo, hi);
    return Cover{h.LeafBegin(node), h.LeafEnd(node) - 1};
  }
  const NumericDomain& d = a.numeric;
  if (d.bin_width <= 0) return Cover{lo, hi};
  // 64-bit arithmetic: bins near INT32_MAX must not overflow.
  const int64_t w = d.bin_width;
  const int64_t blo = d.min + (static_cast<int64_t>(lo) - d.min) / w * w;
  const int64_t bhi = d.min + (static_cast<int64_t>(hi) - d.min) / w * w + w - 1;
  return Cover{static_cast<int32_t>(blo), static_cast<int32_t>(std::min<int64_t>(bhi, d.max))};
}

Cover Schema::RootCover(size_t attr) const {
  const QiAttribute& a = attributes_[attr];
  if (a.IsCategorical()) return Cover{0, a.hierarchy->LeafCount() - 1};
  return Generalize(attr, a.numeric.min, a.numeric.max);
}

double Schema::Loss(size_t attr, Cover cover) const {
  const QiAttribute& a = attributes_[attr];
  if (a.IsCategorical()) {
    const CategoricalHierarchy& h = *a.hierarchy;
    if (h.LeafCount() <= 1) return 0;
    return static_cast<double>(cover.hi - cover.lo) / (h.LeafCount() - 1);
  }
  const int64_t range = static_cast<int64_t>(a.numeric.max) - a.numeric.min;
  if (range <= 0) return 0;
  return static_cast<double>(static_cast<int64_t>(cover.hi) - cover.lo) / static_cast<double>(range);
}

std::string Schema::Label(size_t attr, Cover cover) const {
  const QiAttribute& a = attributes_[attr];
  if (a.IsCategorical()) {
    const CategoricalHierarchy& h = *a.hierarchy;
    return h.Name(h.LowestCommonNode(cover.lo, cover.hi));
  }
  if (cover.lo == cover.hi) return std::to_string(cover.lo);
  return "[" + std::to_string(cover.lo) + "," + std::to_string(cover.hi) + "]";
}

}  // namespace vanon
