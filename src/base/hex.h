// Lower-case hexadecimal, for HMAC tokens, random ids and keys in text form.

#ifndef VANON_SRC_BASE_HEX_H_
#define VANON_SRC_BASE_HEX_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace vanon::base {

// Two digits a byte, high nibble first.
void AppendHex(std::string* out, std::string_view bytes);
std::string HexEncode(std::string_view bytes);

// Exactly 16 digits, most significant first (zero-padded).
void AppendHex64(std::string* out, uint64_t value);

// The bytes of lower-case `hex`; false on an odd length or any other character.
bool HexDecode(std::string_view hex, std::string* out);

}  // namespace vanon::base

#endif  // VANON_SRC_BASE_HEX_H_
