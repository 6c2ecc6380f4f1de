#include "vanon/engine/schema.h"

#include <algorithm>
#include <charconv>

namespace vanon::engine {

namespace {

// code / 10^decimals, printed from the integer digits so that no binary
// floating-point value (1.1 -> 1.1000000000000001) ever reaches a label.
// Trailing zeros of the fraction are dropped: 20 with one decimal is "2".
std::string DecimalString(int32_t code, int32_t decimals) {
  const bool negative = code < 0;
  std::string digits = std::to_string(negative ? -static_cast<int64_t>(code) : code);
  if (decimals > 0) {
    if (digits.size() <= static_cast<size_t>(decimals)) {
      digits.insert(0, static_cast<size_t>(decimals) + 1 - digits.size(), '0');
    }
    digits.insert(digits.size() - static_cast<size_t>(decimals), 1, '.');
    while (digits.back() == '0') digits.pop_back();
    if (digits.back() == '.') digits.pop_back();
  }
  return negative ? "-" + digits : digits;
}

}  // namespace

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
  const int32_t decimals = a.numeric.decimals;
  if (cover.lo == cover.hi) return DecimalString(cover.lo, decimals);
  return "[" + DecimalString(cover.lo, decimals) + "," + DecimalString(cover.hi, decimals) + "]";
}

}  // namespace vanon::engine
