// Appending JSON pieces to a reused std::string without temporaries: the
// generator writes > 1M messages/s, so no per-message formatting objects.
#ifndef VANON_SRC_FLEET_JSON_APPEND_H_
#define VANON_SRC_FLEET_JSON_APPEND_H_

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

namespace vanon::fleet::internal {

inline void AppendInt(std::string& out, int64_t value) {
  char buf[24];
  const auto result = std::to_chars(buf, buf + sizeof(buf), value);
  out.append(buf, result.ptr);
}

// `scaled` / 10^decimals in fixed notation, e.g. (48137154, 6) -> 48.137154.
inline void AppendFixed(std::string& out, int64_t scaled, int decimals) {
  if (scaled < 0) {
    out += '-';
    scaled = -scaled;
  }
  int64_t divisor = 1;
  for (int i = 0; i < decimals; ++i) divisor *= 10;
  AppendInt(out, scaled / divisor);
  out += '.';
  const int64_t fraction = scaled % divisor;
  char digits[20];
  int64_t f = fraction;
  for (int i = decimals - 1; i >= 0; --i) {
    digits[i] = static_cast<char>('0' + f % 10);
    f /= 10;
  }
  out.append(digits, static_cast<size_t>(decimals));
}

// "name": with the comma that precedes every field but the first.
inline void AppendKey(std::string& out, std::string_view name, bool first = false) {
  if (!first) out += ',';
  out += '"';
  out.append(name);
  out.append("\":", 2);
}

// A string value the caller knows needs no escaping (fixed vocabularies).
inline void AppendPlainString(std::string& out, std::string_view value) {
  out += '"';
  out.append(value);
  out += '"';
}

}  // namespace vanon::fleet::internal

#endif  // VANON_SRC_FLEET_JSON_APPEND_H_
