#include "service/dp/dp_publisher.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>

#include "service/dp/dp_metrics.h"
#include "service/dp/dp_mode.h"
#include "service/store/share_state.h"

namespace vanon::service {

namespace {

double WallSeconds() {
  using namespace std::chrono;
  return static_cast<double>(duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count()) / 1000.0;
}

}  // namespace

struct DpPublisher::Rep {
  explicit Rep(prometheus::Registry& registry) : metrics(registry) {}

  std::unique_ptr<ShareState> owned_state;  // over the StateStore given, if one was
  DpMetrics metrics;
  std::unique_ptr<DpCore> core;  // null when dp is off
  std::unique_ptr<DpMode> mode;
  std::map<int32_t, bool> exhausted;  // last committed state per partition
  std::map<int32_t, dp::BudgetStatus> statuses;
};

DpPublisher::DpPublisher(const config::Config& config, std::string_view hmac_key, ShareState* state,
                         prometheus::Registry& registry)
    : DpPublisher(config, hmac_key, nullptr, state, registry) {}

DpPublisher::DpPublisher(const config::Config& config, std::string_view hmac_key, std::unique_ptr<ShareState> owned,
                         ShareState* state, prometheus::Registry& registry)
    : rep_(std::make_unique<Rep>(registry)) {
  rep_->owned_state = std::move(owned);
  if (!config.dp.enabled) return;
  rep_->core = std::make_unique<DpCore>(config, hmac_key, state != nullptr ? state : rep_->owned_state.get());
  rep_->mode = NewDpMode(rep_->core.get());
  DpMetrics& m = rep_->metrics;
  m.budget.Set(rep_->core->settings.policy.period_total.ToDouble());
  if (aggregating()) {
    // How long a global window may wait for its partials (its own length,
    // then max_wait_windows more) before it goes out incomplete: the
    // stalled-counts alert compares with it.
    m.global_max_wait.Set(static_cast<double>((config.dp.aggregation.max_wait_windows + 1) * config.dp.window_seconds));
    // Start counting from now, on every instance: an aggregation partition
    // that never runs a release (never assigned, its instance stuck) would
    // otherwise leave no series for the stalled alert to fire on.
    m.global_last_published.Set(WallSeconds());
  }
}

DpPublisher::~DpPublisher() = default;

DpPublisher::Result DpPublisher::Compute(int32_t partition, int64_t epoch, int64_t epoch_start_ms, int64_t epoch_end_ms,
                                         std::span<const ingest::BufferedEvent> events, dp::RandomSource& random) {
  if (!rep_->mode) return Compute(partition, epoch, epoch_start_ms, epoch_end_ms, EventsByVehicle(), random);
  return Compute(partition, epoch, epoch_start_ms, epoch_end_ms, GroupByVehicle(events), random);
}

DpPublisher::Result DpPublisher::Compute(int32_t partition, int64_t epoch, int64_t epoch_start_ms, int64_t epoch_end_ms,
                                         EventsByVehicle by_vehicle, dp::RandomSource& random) {
  if (!rep_->mode) {
    Result result;
    result.partition = partition;
    return result;
  }
  Result result = rep_->mode->Compute(partition, epoch, epoch_start_ms, epoch_end_ms, by_vehicle, random);
  std::lock_guard<std::mutex> l(rep_->core->mu);
  result.ledger_record = rep_->core->ledgers.Record(partition);
  return result;
}

void DpPublisher::Apply(const Result& r, ShareDelta* d) const {
  for (const auto& [name, value] : r.meta) d->Add(ShareDelta::PutMeta{name, value});
  for (const std::string& name : r.meta_deleted) d->Add(ShareDelta::DeleteMeta{name});
}

void DpPublisher::Committed(const Result& r) {
  if (!rep_->core) return;
  bool& was = rep_->exhausted[r.partition];
  if (r.budget_exhausted && !was) {
    spdlog::warn("dp: privacy budget exhausted on partition {}, DP counts paused: {}", r.partition,
                 r.exhausted_message);
  } else if (!r.budget_exhausted && was) {
    spdlog::info("dp: privacy budget available again on partition {}, DP counts resumed", r.partition);
  }
  was = r.budget_exhausted;
  rep_->statuses[r.partition] = r.status;
  DpMetrics& m = rep_->metrics;
  m.cells.Increment(static_cast<double>(r.cells_published));
  m.cut.Increment(static_cast<double>(r.contributions_cut));
  m.global_complete.Increment(static_cast<double>(r.global_complete));
  m.global_incomplete.Increment(static_cast<double>(r.global_incomplete));
  m.partials_dropped.Increment(static_cast<double>(r.partials_dropped));
  if (r.aggregated && r.global_complete + r.global_incomplete > 0) m.global_last_published.Set(WallSeconds());

  dp::Epsilon spent, remaining = rep_->core->settings.policy.period_total;
  for (const auto& [p, s] : rep_->statuses) {
    spent = std::max(spent, s.spent);
    remaining = std::min(remaining, s.remaining);
  }
  m.spent.Set(spent.ToDouble());
  m.remaining.Set(remaining.ToDouble());
  m.exhausted.Set(budget_exhausted() ? 1 : 0);
}

bool DpPublisher::enabled() const { return rep_->core != nullptr; }

bool DpPublisher::budget_exhausted() const {
  return std::any_of(rep_->exhausted.begin(), rep_->exhausted.end(), [](const auto& e) { return e.second; });
}

void DpPublisher::Forget(int32_t partition) {
  if (!rep_->core) return;
  std::lock_guard<std::mutex> l(rep_->core->mu);
  rep_->core->ledgers.Forget(partition);
}

void DpPublisher::SetAggregation(int32_t input_partitions, std::unique_ptr<DpPartialSource> source) {
  if (rep_->mode) rep_->mode->SetAggregation(input_partitions, std::move(source));
}

bool DpPublisher::aggregating() const { return rep_->core && rep_->core->settings.aggregating(); }

void DpPublisher::SetSensitiveExtra(int index) {
  if (rep_->core) rep_->core->vehicles.SetSensitiveExtra(index);
}

}  // namespace vanon::service
