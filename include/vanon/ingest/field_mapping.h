// Where the parser finds each field of an input event. Paths are dotted
// object paths ("payload.artist"); array indexing is not supported and a
// key that itself contains a '.' cannot be addressed.

#ifndef VANON_INGEST_FIELD_MAPPING_H_
#define VANON_INGEST_FIELD_MAPPING_H_

#include <string>
#include <vector>

namespace vanon::ingest {

struct FieldMapping {
  // Defaults are the default input format (privacy-model.md section 1).
  std::string vin = "vin";
  std::string trip = "trip_id";
  std::string timestamp = "ts";
  std::string event = "event";
  std::string payload = "payload";

  // The default schema requires a payload object. When false, a missing
  // payload (or an explicit null) is read as "{}"; a present non-object is
  // still wrong_type.
  bool payload_required = true;

  // Further values to read as text, e.g. "payload.artist". A missing value or
  // JSON null yields std::nullopt in ParsedEvent::extras; a string is taken
  // as is; numbers and booleans are rendered as text; an object or array is
  // wrong_type (extras feed QIs and sensitive values, which are scalars).
  std::vector<std::string> extras;
};

}  // namespace vanon::ingest

#endif  // VANON_INGEST_FIELD_MAPPING_H_
