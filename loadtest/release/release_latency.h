// Release latency as a downstream consumer sees it: from the moment an
// epoch may close (epoch_end + allowed lateness, in event time, which the
// paced fleet keeps equal to wall time) to the wall time at which the
// partition's summary record became readable. On the mock cluster records
// are readable as soon as they are appended (it writes no transaction
// markers), so this ends a commit round trip earlier than on a real broker.
#ifndef VANON_LOADTEST_RELEASE_RELEASE_LATENCY_H_
#define VANON_LOADTEST_RELEASE_RELEASE_LATENCY_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

namespace vanon::loadtest {

struct LatencyStats {
  size_t count = 0;
  double p50_s = 0;
  double max_s = 0;
};

class ReleaseLatency {
 public:
  explicit ReleaseLatency(int64_t lateness_ms) : lateness_ms_(lateness_ms) {}

  // Feeds one record of the releases topic; ignores all but summaries.
  // Returns false for a summary it cannot parse.
  bool Observe(std::string_view value, int64_t seen_wall_ms);

  // Over partition shares whose epoch ended in [from_ms, to_ms) (event time).
  LatencyStats Shares(int64_t from_ms, int64_t to_ms) const;
  // Over releases complete in every partition, timed by their last share.
  LatencyStats Complete(int64_t from_ms, int64_t to_ms) const;
  // Every release complete in every partition: (epoch end in event time,
  // latency in seconds), in epoch order.
  std::vector<std::pair<int64_t, double>> CompleteSeries() const;
  // Events the summaries in the window report as published.
  uint64_t Events(int64_t from_ms, int64_t to_ms) const;
  size_t summaries() const;

 private:
  struct Share {
    int64_t epoch_end_ms;
    int64_t partitions;
    int64_t seen_wall_ms;
    uint64_t events;
  };
  const int64_t lateness_ms_;
  mutable std::mutex mu_;
  std::map<int64_t, std::vector<Share>> by_release_;
};

}  // namespace vanon::loadtest

#endif  // VANON_LOADTEST_RELEASE_RELEASE_LATENCY_H_
