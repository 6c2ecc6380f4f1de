#include "fuzz_support.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "base/vin.h"

namespace vanon::fuzz {

void Fail(const std::string& what) {
#ifdef VANON_LIBFUZZER
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what.c_str());
  std::abort();
#else
  throw Violation{what};
#endif
}

std::string SourcePath(const std::string& relative) { return std::string(VANON_SOURCE_DIR) + "/" + relative; }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void WriteFile(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out.flush()) throw std::runtime_error("cannot write " + path);
}

namespace {

std::string MakeScratchDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/vanon-fuzz-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create a scratch directory");
  return pattern;
}

void RemoveScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(ScratchDir(), ec);
}

}  // namespace

const std::string& ScratchDir() {
  static const std::string* dir = [] {
    auto* d = new std::string(MakeScratchDir());
    std::atexit(RemoveScratchDir);
    return d;
  }();
  return *dir;
}

std::pair<std::string_view, std::string_view> SplitOnce(std::string_view input, std::string_view separator) {
  const size_t at = input.find(separator);
  if (at == std::string_view::npos) return {input, {}};
  return {input.substr(0, at), input.substr(at + separator.size())};
}

std::vector<std::string_view> VinShapedTokens(std::string_view text) {
  constexpr size_t kVin = base::kVinLength;
  std::vector<std::string_view> out;
  size_t run = 0;  // VIN characters ending at i
  for (size_t i = 0; i < text.size(); ++i) {
    run = base::IsVinChar(text[i]) ? run + 1 : 0;
    if (run >= kVin) out.push_back(text.substr(i + 1 - kVin, kVin));
  }
  return out;
}

bool EchoesVin(std::string_view message, std::string_view source) {
  for (std::string_view vin : VinShapedTokens(source)) {
    if (message.find(vin) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace vanon::fuzz
