// Appending JSON tokens to a string: the release records are flat enough
// that a writer object would add more than it saves.
#ifndef VANON_SRC_RELEASE_JSON_OUT_H_
#define VANON_SRC_RELEASE_JSON_OUT_H_

#include <cmath>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace vanon {

// Escapes quotes, backslashes and control characters; other bytes pass
// through (input strings were validated as UTF-8 at ingestion).
inline void AppendJsonString(std::string* out, std::string_view s) {
  out->push_back('"');
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (u < 0x20) {
      fmt::format_to(std::back_inserter(*out), "\\u{:04x}", u);
    } else {
      out->push_back(c);
    }
  }
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

template <typename Int>
inline void AppendJsonInt(std::string* out, Int v) {
  fmt::format_to(std::back_inserter(*out), "{}", v);
}

}  // namespace vanon

#endif  // VANON_SRC_RELEASE_JSON_OUT_H_
