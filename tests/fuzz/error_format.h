// The one shape of every loader's error: "<source>:<line>: <what>", with a
// line within the input (0 only for a problem of the whole file), so an
// operator can jump to it.
#ifndef VANON_TESTS_FUZZ_ERROR_FORMAT_H_
#define VANON_TESTS_FUZZ_ERROR_FORMAT_H_

#include <algorithm>
#include <string>
#include <string_view>

#include "fuzz_support.h"

namespace vanon::fuzz {

// Lines of a text as an editor numbers them (a last line without its
// newline counts, and so does the empty line after a final newline).
inline long LineCount(std::string_view text) {
  return static_cast<long>(std::count(text.begin(), text.end(), '\n')) + 1;
}

// Checks one error line against "<source>:<line>: " with line <= max_line,
// and returns the line.
inline long CheckErrorLine(std::string_view message, std::string_view source, long max_line) {
  const std::string whole(message);
  if (message.substr(0, source.size()) != source || message.size() <= source.size() || message[source.size()] != ':') {
    Fail("an error does not start with its source: " + whole);
  }
  message.remove_prefix(source.size() + 1);
  long line = 0;
  size_t digits = 0;
  while (digits < message.size() && digits < 9 && message[digits] >= '0' && message[digits] <= '9') {
    line = line * 10 + (message[digits] - '0');
    ++digits;
  }
  if (digits == 0 || message.substr(digits, 2) != ": ") Fail("an error does not name its line: " + whole);
  if (line > max_line) Fail("an error names a line past the end of the input: " + whole);
  return line;
}

}  // namespace vanon::fuzz

#endif  // VANON_TESTS_FUZZ_ERROR_FORMAT_H_
