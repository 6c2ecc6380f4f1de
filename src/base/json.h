// Appending JSON tokens to a string: every record vanon writes is flat
// enough that a writer object would add more than it saves.

#ifndef VANON_SRC_BASE_JSON_H_
#define VANON_SRC_BASE_JSON_H_

#include <charconv>
#include <cmath>
#include <iterator>
#include <type_traits>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace vanon::base {

// The inside of a JSON string: escapes quotes, backslashes and control
// characters (\n, \r, \t by name, the others as \u00XX); other bytes pass
// through (strings were validated as UTF-8 at ingestion). `Out` is anything
// with push_back(char): a std::string, or the logger's fmt buffer.
template <typename Out>
void AppendJsonEscaped(Out* out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (u >= 0x20) {
      out->push_back(c);
    } else {
      out->push_back('\\');
      if (c == '\n') {
        out->push_back('n');
      } else if (c == '\r') {
        out->push_back('r');
      } else if (c == '\t') {
        out->push_back('t');
      } else {
        for (char e : {'u', '0', '0', kHex[u >> 4], kHex[u & 15]}) out->push_back(e);
      }
    }
  }
}

// A quoted JSON string. Runs that need no escaping (usually all of it) are
// appended whole: char by char, this was a visible cost of ingestion and of
// writing release records.
inline void AppendJsonString(std::string* out, std::string_view s) {
  out->push_back('"');
  size_t clean = 0;  // start of the run not yet appended
  for (size_t i = 0; i < s.size(); ++i) {
    const auto u = static_cast<unsigned char>(s[i]);
    if (u >= 0x20 && s[i] != '"' && s[i] != '\\') continue;
    out->append(s.data() + clean, i - clean);
    AppendJsonEscaped(out, s.substr(i, 1));
    clean = i + 1;
  }
  out->append(s.data() + clean, s.size() - clean);
  out->push_back('"');
}

// Shortest round-trip form; JSON has no NaN or infinity, so those are null.
inline void AppendJsonDouble(std::string* out, double v) {
  if (!std::isfinite(v)) {
    out->append("null");
    return;
  }
  fmt::format_to(std::back_inserter(*out), "{}", v);
}

// Decimal, as fmt's "{}" writes it; through a stack buffer, not pushed
// char by char (every release record carries a few).
template <typename Int>
void AppendJsonInt(std::string* out, Int v) {
  static_assert(std::is_integral_v<Int> && !std::is_same_v<Int, bool> && !std::is_same_v<Int, char>);
  char buf[24];
  out->append(buf, std::to_chars(buf, buf + sizeof(buf), v).ptr);
}

}  // namespace vanon::base

#endif  // VANON_SRC_BASE_JSON_H_
