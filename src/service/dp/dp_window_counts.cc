// Counts per DP window of a partition (dp.window_seconds, docs/dp.md "DP
// windows"): a window's counts are published once, when it closes
// (dp_windows.h), with one ledger charge of epsilon_per_release per window.
// A recomputed closing release republishes the same values: the ledger
// answers kAlreadySpent for a window it charged and the noise comes from the
// release's seed.
//
// Running totals are the cumulative sums of the published window counts
// (CumulativeSums), not tree counters: no further epsilon.

#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "service/dp/dp_windows.h"

namespace vanon::service {

namespace {

using Result = DpPublisher::Result;

std::string PartitionTail(int32_t partition) { return ",\"partition\":" + std::to_string(partition); }

class WindowCounts final : public DpMode {
 public:
  explicit WindowCounts(DpCore* core) : core_(*core), windows_(core) {}

  Result Compute(int32_t partition, int64_t epoch, int64_t epoch_start_ms, int64_t epoch_end_ms, EventsByVehicle events,
                 dp::RandomSource& random) override;

 private:
  void Publish(int32_t partition, const DpWindow& window, dp::RandomSource& random, Result* result);

  DpCore& core_;
  const WindowGatherer windows_;
};

Result WindowCounts::Compute(int32_t partition, int64_t /*epoch*/, int64_t epoch_start_ms, int64_t epoch_end_ms,
                             EventsByVehicle events, dp::RandomSource& random) {
  Result result;
  result.partition = partition;
  std::lock_guard<std::mutex> lock(core_.mu);
  const bool closed = windows_.Add(
      partition, epoch_start_ms, epoch_end_ms, events,
      [&](DpWindow& window, Result* r) { Publish(partition, window, random, r); }, &result);
  const bool published = closed || !result.records.empty() || result.budget_exhausted;
  result.status = core_.ledgers.Get(partition).Status(epoch_start_ms);
  if (!published && result.status.exhausted) {
    // Between windows: report the pause the next charge would meet.
    result.budget_exhausted = true;
    result.exhausted_message = "the next DP window's charge does not fit in the budget";
  }
  result.cells_published = result.records.size();
  return result;
}

void WindowCounts::Publish(int32_t partition, const DpWindow& window, dp::RandomSource& random, Result* result) {
  const DpSettings& s = core_.settings;
  const int64_t start = window.index * s.window_ms, end = start + s.window_ms;
  const uint64_t id = kWindowLedgerBit | static_cast<uint64_t>(window.index);
  const dp::SpendResult spend = core_.ledgers.Get(partition).TrySpend(id, start, s.policy.per_release);
  if (spend.outcome == dp::SpendOutcome::kExhausted) {
    result->budget_exhausted = true;
    result->exhausted_message = spend.message;
    return;  // this window's counts are not published
  }
  if (!spend.publish()) throw std::runtime_error(spend.message);

  std::vector<dp::BoundedCounter> counters;
  for (const dp::WindowCounter& c : window.counters) counters.push_back(c.counter());
  const dp::DpRelease release(s.plan, static_cast<uint64_t>(window.index), std::move(counters));
  std::optional<dp::DpReleaseResult> out = release.Publish(s.policy.per_release, random);
  if (!out) throw std::runtime_error("dp: noise scale overflow in window " + std::to_string(window.index));
  for (const dp::DpCountRecord& r : out->records)
    result->records.push_back(DpWindowJson(r, start, end, PartitionTail(partition)));
  result->contributions_cut += out->contributions_cut;

  CumulativeSums(core_, partition, "dp_cumsum/", release, *out, PartitionTail(partition), result);
}

}  // namespace

std::unique_ptr<DpMode> NewWindowCounts(DpCore* core) { return std::make_unique<WindowCounts>(core); }

}  // namespace vanon::service
