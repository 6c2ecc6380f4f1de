// Prints the records of a few generated releases, one JSON document per line
// prefixed by its topic, for schema validation (validate_records.py).
#include <cstdio>

#include "release_pipeline.h"

int main() {
  using namespace vanon;
  using release_test::Pipeline;
  Pipeline p(release_test::TestConfig(release_test::WriteEngineHierarchy()));
  for (uint64_t r = 0; r < 3; ++r) {
    auto events = release_test::Generate(static_cast<uint32_t>(30 * r), 60, static_cast<int64_t>(r) * 60000, r);
    events.push_back(release_test::Event(9999, 0, "BEV", "4", "x", "{\"gps\":{\"lat\":\"bad\"},\"speed\":\"fast\"}"));
    const release_test::Step s = p.Run(r, events, release_test::SeedOf(static_cast<uint8_t>(r)));
    for (std::string_view e : s.records.events) std::printf("anonymized %.*s\n", static_cast<int>(e.size()), e.data());
    for (const auto& g : s.records.groups) std::printf("releases %s\n", g.c_str());
    std::printf("releases %s\n", s.records.summary.c_str());
  }
  return 0;
}
