// Appending JSON tokens to a string: every record vanon writes is flat
// enough that a writer object would add more than it saves.

#ifndef VANON_SRC_BASE_JSON_H_
#define VANON_SRC_BASE_JSON_H_

#include <charconv>
#include <cmath>
#include <cstring>
#include <iterator>
#include <type_traits>
#include <string>
#include <string_view>

#include <fmt/format.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

#if defined(__SSE2__)
// Bit i set where v[i] is a byte JSON must escape.
inline unsigned EscapeMask(__m128i v) {
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i last_control = _mm_set1_epi8(0x1F);
  // Unsigned v <= 0x1F: max(v, 0x1F) is 0x1F exactly then.
  const __m128i control = _mm_cmpeq_epi8(_mm_max_epu8(v, last_control), last_control);
  const __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)), control);
  return static_cast<unsigned>(_mm_movemask_epi8(hit));
}
#endif

// Where the first byte at or after `from` that JSON must escape is, or
// s.size(). Sixteen bytes at a time where SSE2 is there (every x86-64):
// record writing calls this for every event's name, and byte by byte it
// was about 290 instructions per call (callgrind, bench_release_share).
// The last, shorter block too: the 16 bytes ending with the string, or the
// bytes copied into a block padded with a byte that needs no escape (the
// byte-by-byte tail was still three quarters of the time).
inline size_t FirstToEscape(std::string_view s, size_t from) {
#if defined(__SSE2__)
  for (; from + 16 <= s.size(); from += 16) {
    const unsigned mask = EscapeMask(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + from)));
    if (mask != 0) return from + static_cast<size_t>(__builtin_ctz(mask));
  }
  if (from >= s.size()) return s.size();
  const size_t left = s.size() - from;  // 1 to 15
  unsigned mask;
  if (s.size() >= 16) {
    mask = EscapeMask(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + s.size() - 16))) >> (16 - left);
  } else {
    char block[16];
    std::memset(block, 'a', sizeof(block));
    std::memcpy(block, s.data() + from, left);
    mask = EscapeMask(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block))) & ((1U << left) - 1);
  }
  return mask != 0 ? from + static_cast<size_t>(__builtin_ctz(mask)) : s.size();
#else
  for (; from < s.size(); ++from) {
    const auto u = static_cast<unsigned char>(s[from]);
    if (u < 0x20 || u == '"' || u == '\\') return from;
  }
  return s.size();
#endif
}

// A quoted JSON string. Runs that need no escaping (usually all of it) are
// appended whole: char by char, this was a visible cost of ingestion and of
// writing release records.
inline void AppendJsonString(std::string* out, std::string_view s) {
  out->push_back('"');
  size_t clean = 0;  // start of the run not yet appended
  for (size_t i = FirstToEscape(s, 0); i < s.size(); i = FirstToEscape(s, clean)) {
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
