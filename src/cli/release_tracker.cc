#include "release_tracker.h"

#include <stdexcept>
#include <string>

namespace vanon::cli {

ReleaseTracker::ReleaseTracker(int32_t partitions) : partitions_(partitions) {
  if (partitions < 1) throw std::invalid_argument("the input topic has no partitions");
}

std::optional<CompleteRelease> ReleaseTracker::Add(const ShareSummary& s, Clock::time_point now) {
  if (s.partitions != partitions_ || s.partition < 0 || s.partition >= partitions_) {
    throw std::invalid_argument("summary of release " + std::to_string(s.release) + " partition " +
                                std::to_string(s.partition) + " counts " + std::to_string(s.partitions) +
                                " input partitions; the cluster's metadata says " + std::to_string(partitions_));
  }
  auto latest = latest_.find(s.partition);
  if (latest != latest_.end() && s.release <= latest->second) return std::nullopt;
  latest_[s.partition] = s.release;

  // Earlier releases still missing this partition's summary never get it.
  for (auto it = pending_.begin(); it != pending_.end() && it->first < s.release;) {
    if (it->second.shares.count(s.partition) == 0) {
      abandoned_.push_back({it->first, Missing(it->second), now - it->second.first_seen});
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }

  auto [it, fresh] = pending_.try_emplace(s.release);
  if (fresh) it->second.first_seen = now;
  it->second.shares[s.partition] = s;
  if (static_cast<int32_t>(it->second.shares.size()) < partitions_) return std::nullopt;

  CompleteRelease c;
  c.release = s.release;
  c.partitions = partitions_;
  for (const auto& [p, share] : it->second.shares) {
    c.groups += share.groups;
    c.tuples += share.tuples;
    c.published += share.published;
    c.suppressed += share.suppressed;
    c.counterfeits += share.counterfeits;
    c.events += share.events;
  }
  pending_.erase(it);
  return c;
}

std::vector<IncompleteRelease> ReleaseTracker::TakeAbandoned() {
  std::vector<IncompleteRelease> out;
  out.swap(abandoned_);
  return out;
}

std::optional<IncompleteRelease> ReleaseTracker::OldestPending(Clock::time_point now) const {
  if (pending_.empty()) return std::nullopt;
  // Not the lowest id: the release waiting longest.
  auto oldest = pending_.begin();
  for (auto it = pending_.begin(); it != pending_.end(); ++it) {
    if (it->second.first_seen < oldest->second.first_seen) oldest = it;
  }
  return IncompleteRelease{oldest->first, Missing(oldest->second), now - oldest->second.first_seen};
}

std::vector<int32_t> ReleaseTracker::Missing(const Pending& p) const {
  std::vector<int32_t> out;
  for (int32_t i = 0; i < partitions_; ++i) {
    if (p.shares.count(i) == 0) out.push_back(i);
  }
  return out;
}

}  // namespace vanon::cli
