// Model year from VIN position 10.
//
// The year code repeats every 30 years (A = 1980 and 2010, 1 = 2001 and
// 2031), so one character cannot name a year on its own. The decoding
// table picks how to resolve it:
//   kBaseYear:  the year in [base_year, base_year + 29] with that code.
//               Works for any market; the table must be revised once the
//               fleet holds cars older than base_year.
//   kPosition7: the North American rule (49 CFR 565) for passenger
//               cars and light trucks: a digit at position 7 means the
//               1980-2009 cycle, a letter the 2010-2039 cycle. Only valid
//               for VINs built to that rule.
#ifndef VANON_VEHICLE_MODEL_YEAR_H_
#define VANON_VEHICLE_MODEL_YEAR_H_

#include <optional>
#include <string_view>

namespace vanon::fleet {

enum class ModelYearRule { kBaseYear, kPosition7 };

struct ModelYearPolicy {
  ModelYearRule rule = ModelYearRule::kBaseYear;
  int base_year = 2001;  // used by kBaseYear only
};

// The position-10 code of `year`, or nullopt for years before 1980.
std::optional<char> ModelYearCode(int year);

// The model year `vin` encodes under `policy`, or nullopt when position 10
// is not a year code (0, I, O, Q, U, Z) or `vin` is shorter than 10.
std::optional<int> DecodeModelYear(std::string_view vin, const ModelYearPolicy& policy);

}  // namespace vanon::fleet

#endif  // VANON_VEHICLE_MODEL_YEAR_H_
