#include "vanon/ingest/rfc3339.h"

#include <chrono>

namespace vanon::ingest {

namespace {

// Reads exactly `n` ASCII digits at text[*pos].
bool ReadDigits(std::string_view text, std::size_t* pos, int n, int* value) {
  if (text.size() - *pos < static_cast<std::size_t>(n)) return false;
  int v = 0;
  for (int i = 0; i < n; ++i) {
    const char c = text[*pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  *value = v;
  return true;
}

bool Expect(std::string_view text, std::size_t* pos, char a, char b) {
  if (*pos >= text.size()) return false;
  const char c = text[*pos];
  if (c != a && c != b) return false;
  ++*pos;
  return true;
}

}  // namespace

bool ParseRfc3339Millis(std::string_view text, std::int64_t* ms) {
  std::size_t pos = 0;
  // Zero-initialised: GCC 12 at -O3 cannot see that ReadDigits sets them
  // before any use, and the Release build treats that warning as an error.
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!ReadDigits(text, &pos, 4, &year) || !Expect(text, &pos, '-', '-') || !ReadDigits(text, &pos, 2, &month) ||
      !Expect(text, &pos, '-', '-') || !ReadDigits(text, &pos, 2, &day) || !Expect(text, &pos, 'T', 't') ||
      !ReadDigits(text, &pos, 2, &hour) || !Expect(text, &pos, ':', ':') || !ReadDigits(text, &pos, 2, &minute) ||
      !Expect(text, &pos, ':', ':') || !ReadDigits(text, &pos, 2, &second)) {
    return false;
  }
  if (hour > 23 || minute > 59 || second > 60) return false;

  int millis = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (digits < 3) millis = millis * 10 + (text[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return false;
    for (int i = digits; i < 3; ++i) millis *= 10;
  }

  int offset_minutes = 0;
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    const int sign = text[pos] == '-' ? -1 : 1;
    ++pos;
    int oh, om;
    if (!ReadDigits(text, &pos, 2, &oh) || !Expect(text, &pos, ':', ':') || !ReadDigits(text, &pos, 2, &om) ||
        oh > 23 || om > 59) {
      return false;
    }
    offset_minutes = sign * (oh * 60 + om);
  } else {
    return false;
  }
  if (pos != text.size()) return false;

  const std::chrono::year_month_day date{std::chrono::year{year}, std::chrono::month{static_cast<unsigned>(month)},
                                         std::chrono::day{static_cast<unsigned>(day)}};
  if (!date.ok()) return false;
  const std::int64_t days = std::chrono::sys_days{date}.time_since_epoch().count();
  // Local time minus the offset is UTC. Years 0000-9999 keep every term far
  // from int64 overflow.
  const std::int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
  *ms = seconds * 1000 + millis;
  return true;
}

}  // namespace vanon::ingest
