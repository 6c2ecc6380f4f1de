#include "base/decimal_text.h"

#include <charconv>
#include <cmath>
#include <cstdint>

#include <fmt/compile.h>
#include <fmt/format.h>

namespace vanon::base {

namespace {

template <typename Format>
void AppendWithFmt(std::string* out, const Format& format, double x) {
  char buf[400];  // "{:.6f}" of the largest double is 316 characters
  out->append(buf, fmt::format_to_n(buf, sizeof(buf), format, x).out);
}

void AppendUnsigned(std::string* out, uint64_t v) {
  char buf[24];
  out->append(buf, std::to_chars(buf, buf + sizeof(buf), v).ptr);
}

}  // namespace

// x * 1e6 is computed in double: for |x| < 1e6 the product is below 2^40,
// so its rounding error is at most 2^-13. fmt rounds the exact decimal value
// of x; whenever the computed product is more than 1e-3 from a half-integer,
// both round to the same integer. Near a half-integer (and for a negative x
// that rounds to zero, which fmt prints as "-0.000000") fmt decides.
void AppendFixed6(std::string* out, double x) {
  if (!(std::fabs(x) < 1e6)) return AppendWithFmt(out, FMT_COMPILE("{:.6f}"), x);
  const double scaled = std::fabs(x) * 1e6;
  const double whole = std::floor(scaled);
  const double fraction = scaled - whole;  // exact: both below 2^40
  if (std::fabs(fraction - 0.5) <= 1e-3) return AppendWithFmt(out, FMT_COMPILE("{:.6f}"), x);
  const auto micros = static_cast<uint64_t>(whole) + (fraction > 0.5 ? 1 : 0);
  if (std::signbit(x) && micros == 0) return AppendWithFmt(out, FMT_COMPILE("{:.6f}"), x);
  // Written backwards into one buffer and appended once: every published
  // location carries two of these. micros <= 1e12: at most "-1000000.000000".
  char buf[16];
  char* p = buf + sizeof(buf);
  uint64_t rest = micros % 1000000;
  for (int i = 0; i < 6; ++i, rest /= 10) *--p = static_cast<char>('0' + rest % 10);
  *--p = '.';
  uint64_t units = micros / 1000000;
  do {
    *--p = static_cast<char>('0' + units % 10);
    units /= 10;
  } while (units > 0);
  if (std::signbit(x)) *--p = '-';
  out->append(p, buf + sizeof(buf));
}

// An integral value below 1e15 has at most 15 significant digits, so
// "{:.15g}" writes it in fixed notation without a decimal point: its
// integer digits.
void AppendGeneral15(std::string* out, double x) {
  if (!(std::fabs(x) < 1e15) || x != std::trunc(x) || (x == 0 && std::signbit(x))) {
    return AppendWithFmt(out, FMT_COMPILE("{:.15g}"), x);
  }
  if (x < 0) out->push_back('-');
  AppendUnsigned(out, static_cast<uint64_t>(std::fabs(x)));
}

}  // namespace vanon::base
