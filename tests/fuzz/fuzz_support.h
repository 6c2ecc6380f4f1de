// What every fuzz harness shares. A harness body is a plain function of the
// input bytes; the same source is linked two ways:
//   - by the clang build (loadtest/fuzz/run.sh, -DVANON_FUZZ=ON) into one
//     libFuzzer binary per harness, whose LLVMFuzzerTestOneInput
//     (libfuzzer_entry.cc) calls it, and where a broken invariant aborts so
//     that libFuzzer keeps the input;
//   - by the normal build into vanon_fuzz_tests (replay_test.cc), which
//     replays the seed corpus and every past finding, and where a broken
//     invariant throws Violation so the test names the input.
#ifndef VANON_TESTS_FUZZ_FUZZ_SUPPORT_H_
#define VANON_TESTS_FUZZ_FUZZ_SUPPORT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vanon::fuzz {

// Not a std::exception on purpose: harnesses catch the errors a decoder is
// allowed to throw (std::runtime_error and kin), never a Violation.
struct Violation {
  std::string what;
};

// Reports a broken invariant (see above); never returns.
[[noreturn]] void Fail(const std::string& what);
inline void Check(bool ok, const char* what) {
  if (!ok) Fail(what);
}

// A file of the repository (VANON_SOURCE_DIR is set by tests/fuzz/CMakeLists.txt).
std::string SourcePath(const std::string& relative);
std::string ReadFile(const std::string& path);
void WriteFile(const std::string& path, std::string_view text);

// A directory private to this process, for decoders that read files; it is
// removed at exit.
const std::string& ScratchDir();

// Splits `input` at the first `separator`: {before, after}; after is empty
// when the separator is absent.
std::pair<std::string_view, std::string_view> SplitOnce(std::string_view input, std::string_view separator);

// Every substring of `text` that has the syntax of a VIN (17 characters of
// 0-9 and A-Z without I, O, Q): what must never reach a log or an error.
std::vector<std::string_view> VinShapedTokens(std::string_view text);
// True when `message` contains one of VinShapedTokens(source).
bool EchoesVin(std::string_view message, std::string_view source);

}  // namespace vanon::fuzz

#endif  // VANON_TESTS_FUZZ_FUZZ_SUPPORT_H_
