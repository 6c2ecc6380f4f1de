// Numbers as text, byte for byte what fmt writes for the same format, but
// without fmt's general float machinery in the common case. Coarsening a
// payload prints two coordinates and a bin per event, and fmt's float
// formatting was about a tenth of ingestion's instructions (callgrind of
// bench_ingest_pipeline). Each function takes its fast path only where the
// result provably equals fmt's, and calls fmt otherwise.
#ifndef VANON_SRC_BASE_DECIMAL_TEXT_H_
#define VANON_SRC_BASE_DECIMAL_TEXT_H_

#include <string>

namespace vanon::base {

// Appends fmt::format("{:.6f}", x).
void AppendFixed6(std::string* out, double x);

// Appends fmt::format("{:.15g}", x).
void AppendGeneral15(std::string* out, double x);

}  // namespace vanon::base

#endif  // VANON_SRC_BASE_DECIMAL_TEXT_H_
