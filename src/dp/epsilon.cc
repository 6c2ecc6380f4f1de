#include "vanon/dp/epsilon.h"

#include <charconv>
#include <cmath>
#include <numeric>

namespace vanon::dp {

std::optional<Rational> Rational::Make(uint64_t num, uint64_t den) {
  if (den == 0) return std::nullopt;
  const uint64_t g = std::gcd(num, den);
  if (g == 0) return Rational{0, 1};
  return Rational{num / g, den / g};
}

std::optional<Epsilon> Epsilon::Parse(std::string_view text) {
  if (text.empty()) return std::nullopt;
  int64_t whole = 0;
  int64_t frac = 0;
  int frac_digits = 0;
  bool seen_dot = false;
  bool seen_digit = false;
  for (char c : text) {
    if (c == '.') {
      if (seen_dot) return std::nullopt;
      seen_dot = true;
      continue;
    }
    if (c < '0' || c > '9') return std::nullopt;
    seen_digit = true;
    const int d = c - '0';
    if (seen_dot) {
      if (++frac_digits > 9) return std::nullopt;
      frac = frac * 10 + d;
    } else {
      if (whole > (INT64_MAX / kNanosPerUnit - d) / 10) return std::nullopt;
      whole = whole * 10 + d;
    }
  }
  if (!seen_digit) return std::nullopt;
  for (int i = frac_digits; i < 9; ++i) frac *= 10;
  // The digit loop keeps whole * kNanosPerUnit in range, but adding the
  // fraction can still pass INT64_MAX ("9223372036.9").
  if (whole > (INT64_MAX - frac) / kNanosPerUnit) return std::nullopt;
  return Epsilon(whole * kNanosPerUnit + frac);
}

std::optional<Epsilon> Epsilon::FromDouble(double value) {
  if (!std::isfinite(value) || value < 0) return std::nullopt;
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::fixed);
  if (ec != std::errc()) return std::nullopt;
  return Parse(std::string_view(buf, end - buf));
}

Rational Epsilon::ToRational() const { return *Rational::Make(static_cast<uint64_t>(nanos_), kNanosPerUnit); }

Rational Epsilon::Share(uint64_t parts) const {
  return *Rational::Make(static_cast<uint64_t>(nanos_), kNanosPerUnit * parts);
}

std::string Epsilon::ToString() const {
  std::string out = std::to_string(nanos_ / kNanosPerUnit);
  int64_t frac = nanos_ % kNanosPerUnit;
  if (frac == 0) return out;
  std::string digits = std::to_string(frac);
  digits.insert(0, 9 - digits.size(), '0');
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
  return out + "." + digits;
}

}  // namespace vanon::dp
