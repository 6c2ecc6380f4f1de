// A digest of what DpPublisher::Compute produced (records, state changes,
// partials), shown as a benchmark's label: two builds that must publish the
// same DP counts for the same input and seed can be compared by running the
// same benchmark on each. Not a MAC; a change of output, not an attack, is
// what it has to show.
#ifndef VANON_LOADTEST_SERVICE_DP_DIGEST_H_
#define VANON_LOADTEST_SERVICE_DP_DIGEST_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "service/dp/dp_publisher.h"

namespace vanon::loadtest {

class DpDigest {
 public:
  void Add(const service::DpPublisher::Result& r) {
    for (const std::string& s : r.records) Add(s);
    for (const auto& [name, value] : r.meta) Add(name), Add(value);
    for (const std::string& s : r.meta_deleted) Add(s);
    for (const auto& [key, value] : r.partials) Add(key), Add(value);
    ++results_;
  }
  // "dp_digest=<16 hex digits>/<results>".
  std::string Label() const {
    char hex[17];
    std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(h_));
    return "dp_digest=" + std::string(hex) + "/" + std::to_string(results_);
  }

 private:
  // FNV-1a over the bytes, each string closed by a 0xff (never in UTF-8).
  void Add(std::string_view s) {
    for (unsigned char c : s) h_ = (h_ ^ c) * 0x100000001b3ULL;
    h_ = (h_ ^ 0xff) * 0x100000001b3ULL;
  }

  uint64_t h_ = 0xcbf29ce484222325ULL;
  uint64_t results_ = 0;
};

}  // namespace vanon::loadtest

#endif  // VANON_LOADTEST_SERVICE_DP_DIGEST_H_
