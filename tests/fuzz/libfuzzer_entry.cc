// The libFuzzer entry point of one harness, compiled once per fuzzer binary
// with VANON_FUZZ_BODY naming its body (tests/fuzz/CMakeLists.txt).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  vanon::fuzz::VANON_FUZZ_BODY(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
