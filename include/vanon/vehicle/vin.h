// Syntax of a vehicle identification number (ISO 3779).
//
// ISO 3779 fixes the alphabet and length; the check digit at position 9 is
// a North American rule (49 CFR 565) that many other markets follow. The
// service only demands the ISO syntax (a European VIN need not carry a
// valid check digit), the fleet generator always writes a correct one.
#ifndef VANON_VEHICLE_VIN_H_
#define VANON_VEHICLE_VIN_H_

#include <string_view>

#include "base/vin.h"  // kVinLength, IsVinChar, IsValidVin: the syntax

namespace vanon::fleet {

// The check digit ('0'-'9' or 'X') the 49 CFR 565 algorithm gives for
// `vin` (position 9 itself is ignored). Requires IsValidVin(vin).
char VinCheckDigit(std::string_view vin);

// IsValidVin(vin) and position 9 equals VinCheckDigit(vin).
bool HasValidCheckDigit(std::string_view vin);

}  // namespace vanon::fleet

#endif  // VANON_VEHICLE_VIN_H_
