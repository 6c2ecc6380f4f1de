#include "vanon/vehicle/model_year.h"

#include <cstring>

namespace vanon::fleet {

namespace {

// Position-10 codes for 1980, 1981, ...; the cycle restarts after 30 years.
constexpr char kCodes[] = "ABCDEFGHJKLMNPRSTVWXY123456789";
constexpr int kCycle = 30;
constexpr int kFirstYear = 1980;

int CodeIndex(char c) {
  const char* p = std::strchr(kCodes, c);
  return (c == '\0' || p == nullptr) ? -1 : static_cast<int>(p - kCodes);
}

}  // namespace

std::optional<char> ModelYearCode(int year) {
  if (year < kFirstYear) return std::nullopt;
  return kCodes[(year - kFirstYear) % kCycle];
}

std::optional<int> DecodeModelYear(std::string_view vin, const ModelYearPolicy& policy) {
  if (vin.size() < 10) return std::nullopt;
  const int index = CodeIndex(vin[9]);
  if (index < 0) return std::nullopt;
  const int year_in_first_cycle = kFirstYear + index;
  switch (policy.rule) {
    case ModelYearRule::kPosition7: {
      const bool digit = vin[6] >= '0' && vin[6] <= '9';
      return digit ? year_in_first_cycle : year_in_first_cycle + kCycle;
    }
    case ModelYearRule::kBaseYear:
    default: {
      // Smallest year >= base_year carrying this code.
      int offset = (year_in_first_cycle - policy.base_year) % kCycle;
      if (offset < 0) offset += kCycle;
      return policy.base_year + offset;
    }
  }
}

}  // namespace vanon::fleet
