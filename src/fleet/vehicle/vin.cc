#include "vanon/vehicle/vin.h"

namespace vanon::fleet {

namespace {

// 49 CFR 565: letters map to 1-9 in runs that skip I, O and Q.
int Transliterate(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  // clang-format off
  static constexpr int kLetters[26] = {
      1, 2, 3, 4, 5, 6, 7, 8, 0,  // A-I (I never occurs)
      1, 2, 3, 4, 5, 0, 7, 0, 9,  // J-R (O and Q never occur)
      2, 3, 4, 5, 6, 7, 8, 9};    // S-Z
  // clang-format on
  return kLetters[c - 'A'];
}

constexpr int kWeights[base::kVinLength] = {8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2};

}  // namespace

char VinCheckDigit(std::string_view vin) {
  int sum = 0;
  for (int i = 0; i < base::kVinLength; ++i) sum += Transliterate(vin[i]) * kWeights[i];
  const int rest = sum % 11;
  return rest == 10 ? 'X' : static_cast<char>('0' + rest);
}

bool HasValidCheckDigit(std::string_view vin) { return base::IsValidVin(vin) && vin[8] == VinCheckDigit(vin); }

}  // namespace vanon::fleet
