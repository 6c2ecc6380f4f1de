#include "base/vin.h"

#include <array>

namespace vanon::base {

namespace {

// A table rather than range tests: VINs mix digits and letters at random
// positions, which makes per-character range branches mispredict (this
// showed up at ~10% of parse time in bench_ingest).
constexpr std::array<bool, 256> MakeVinAlphabet() {
  std::array<bool, 256> ok{};
  for (char c = '0'; c <= '9'; ++c) ok[static_cast<unsigned char>(c)] = true;
  for (char c = 'A'; c <= 'Z'; ++c) ok[static_cast<unsigned char>(c)] = true;
  // Excluded by ISO 3779 to avoid confusion with 1 and 0.
  ok['I'] = ok['O'] = ok['Q'] = false;
  return ok;
}

constexpr std::array<bool, 256> kVinAlphabet = MakeVinAlphabet();

}  // namespace

bool IsVinChar(char c) { return kVinAlphabet[static_cast<unsigned char>(c)]; }

bool IsValidVin(std::string_view vin) {
  if (vin.size() != static_cast<size_t>(kVinLength)) return false;
  bool ok = true;
  for (char c : vin) ok &= kVinAlphabet[static_cast<unsigned char>(c)];
  return ok;
}

}  // namespace vanon::base
