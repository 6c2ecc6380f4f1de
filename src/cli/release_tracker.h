// When is a release complete? The rule of docs/consumers.md, without Kafka:
// when the summaries of all input partitions have arrived (their number from
// the cluster's metadata). Each input partition writes its summaries in
// release order into one partition of the releases topic, so a partition
// that summarized a later release will never summarize an earlier one it
// skipped: such a release is abandoned, not waited for.
#ifndef VANON_SRC_CLI_RELEASE_TRACKER_H_
#define VANON_SRC_CLI_RELEASE_TRACKER_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "share_summary.h"

namespace vanon::cli {

struct CompleteRelease {
  int64_t release = 0;
  int32_t partitions = 0;
  uint64_t groups = 0;
  uint64_t tuples = 0;
  uint64_t published = 0;
  uint64_t suppressed = 0;
  uint64_t counterfeits = 0;
  uint64_t events = 0;
};

struct IncompleteRelease {
  int64_t release = 0;
  std::vector<int32_t> missing;  // input partitions without a summary
  std::chrono::steady_clock::duration waited{};
};

class ReleaseTracker {
 public:
  using Clock = std::chrono::steady_clock;

  explicit ReleaseTracker(int32_t partitions);

  // Takes one summary; returns the release it completed, if it did. A
  // summary of a partition for a release at or before one it already
  // summarized (another attempt of the same share) is ignored. Throws
  // std::invalid_argument when the summary's partition count disagrees
  // with the metadata's.
  std::optional<CompleteRelease> Add(const ShareSummary& s, Clock::time_point now);

  // Releases abandoned since the last call, oldest first.
  std::vector<IncompleteRelease> TakeAbandoned();

  // The oldest release still waiting for summaries, if any.
  std::optional<IncompleteRelease> OldestPending(Clock::time_point now) const;

  int32_t partitions() const { return partitions_; }

 private:
  struct Pending {
    Clock::time_point first_seen;
    std::map<int32_t, ShareSummary> shares;
  };
  std::vector<int32_t> Missing(const Pending& p) const;

  int32_t partitions_;
  std::map<int64_t, Pending> pending_;
  std::map<int32_t, int64_t> latest_;  // input partition -> newest release it summarized
  std::vector<IncompleteRelease> abandoned_;
};

}  // namespace vanon::cli

#endif  // VANON_SRC_CLI_RELEASE_TRACKER_H_
