// A synthetic fleet produced to the input topic in chunks, each valid
// event's payload carrying a unique `seq` (kept by the tests' payload
// config), so that every anonymized event read back names the input event
// and the vehicle it came from.
#ifndef VANON_TESTS_SERVICE_SEQ_FEED_H_
#define VANON_TESTS_SERVICE_SEQ_FEED_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace vanon::testing {

struct SeqFeed {
  uint64_t vehicles = 120;
  uint64_t fleet_seed = 14;  // the same fleet in every chunk
  double invalid_fraction = 0.02;
  std::map<uint64_t, std::string> vin_of_seq;
  uint64_t seq = 0;    // the last seq given out
  uint64_t total = 0;  // messages produced
  std::set<std::string> vins;

  // Produces `n` messages with event times from now on, 1 ms apart.
  void Produce(const std::string& bootstrap, uint64_t n);
};

}  // namespace vanon::testing

#endif  // VANON_TESTS_SERVICE_SEQ_FEED_H_
