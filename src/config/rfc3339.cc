#include "rfc3339.h"

#include <chrono>

namespace vanon::config_internal {

namespace {

// Reads exactly `n` digits at text[*pos].
bool Digits(std::string_view text, size_t* pos, int n, int* out) {
  if (*pos + n > text.size()) return false;
  int v = 0;
  for (int i = 0; i < n; ++i) {
    char c = text[*pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  *out = v;
  return true;
}

bool Expect(std::string_view text, size_t* pos, char a, char b = '\0') {
  if (*pos >= text.size()) return false;
  char c = text[*pos];
  if (c != a && (b == '\0' || c != b)) return false;
  ++*pos;
  return true;
}

}  // namespace

bool ParseRfc3339Millis(std::string_view text, int64_t* millis) {
  size_t pos = 0;
  int year, month, day, hour, minute, second;
  if (!Digits(text, &pos, 4, &year) || !Expect(text, &pos, '-') ||
      !Digits(text, &pos, 2, &month) || !Expect(text, &pos, '-') ||
      !Digits(text, &pos, 2, &day) || !Expect(text, &pos, 'T', 't') ||
      !Digits(text, &pos, 2, &hour) || !Expect(text, &pos, ':') ||
      !Digits(text, &pos, 2, &minute) || !Expect(text, &pos, ':') ||
      !Digits(text, &pos, 2, &second)) {
    return false;
  }
  // Second 60 is a leap second, which RFC 3339 allows.
  if (hour > 23 || minute > 59 || second > 60) return false;
  std::chrono::year_month_day ymd{std::chrono::year{year},
                                  std::chrono::month{unsigned(month)},
                                  std::chrono::day{unsigned(day)}};
  if (!ymd.ok()) return false;

  int64_t frac_ms = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    size_t start = pos;
    int64_t scale = 100;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      frac_ms += (text[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
    if (pos == start) return false;
  }

  int offset_minutes = 0;
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    int sign = text[pos] == '-' ? -1 : 1;
    ++pos;
    int oh, om;
    if (!Digits(text, &pos, 2, &oh) || !Expect(text, &pos, ':') ||
        !Digits(text, &pos, 2, &om) || oh > 23 || om > 59) {
      return false;
    }
    offset_minutes = sign * (oh * 60 + om);
  } else {
    return false;
  }
  if (pos != text.size()) return false;

  int64_t days = std::chrono::sys_days{ymd}.time_since_epoch().count();
  int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second -
                    int64_t{offset_minutes} * 60;
  *millis = seconds * 1000 + frac_ms;
  return true;
}

}  // namespace vanon::config_internal
