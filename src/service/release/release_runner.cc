#include "service/release/release_runner.h"

#include <mutex>
#include <utility>

#include "service/release/compute_pool.h"
#include "service/release/job_registry.h"
#include "service/release/release_job.h"
#include "service/release/release_log_reader.h"
#include "service/release/share_applier.h"
#include "service/release/share_collector.h"
#include "service/release/share_preparer.h"
#include "service/release/transaction_loop.h"
#include "service/share/release_share.h"
#include "service/store/store_share_state.h"
#include "vanon/release/payload_transformer.h"
#include "vanon/release/schema_from_config.h"

namespace vanon::service {

// The parts of the runner, in the order a share meets them; the queues and
// the one mutex between its threads are ReleaseQueues (release_job.h).
struct ReleaseRunner::Rep {
  Rep(const config::Config& c, int extra, state::StateStore* store, kafka::TransactionalProducer* producer,
      ReleaseMetricsExporter* metrics, OutputTopology topology, DpPublisher* dp)
      : schema(release::SchemaFromConfig(c.quasi_identifiers, c.sensitive)),
        payload(c.payload),
        share_state(store),
        ctx(MakeContext(c, extra, topology, dp)),
        log(c.kafka),
        collector(c, producer, topology),
        jobs(c, schema, &queues, metrics),
        preparer(c, store, producer, &jobs, log, collector, &queues),
        applier(store, metrics, dp),
        pool(ctx, store, log, &queues),
        loop(c, producer, metrics, &queues, &pool, &collector) {}

  // The batch in flight finishes first: the computing threads still serve it.
  ~Rep() {
    loop.Stop();
    pool.Stop();
  }

  ShareContext MakeContext(const config::Config& c, int extra, OutputTopology topology, DpPublisher* dp) {
    ShareContext x;
    x.config = &c;
    x.schema = &schema;
    x.sensitive_extra = extra;
    x.input_partitions = topology.input_partitions;
    x.state = &share_state;
    x.dp = dp;
    x.payload = &payload;
    return x;
  }

  std::vector<ReleaseOutcome> Apply(bool wait) {
    std::vector<JobPtr> ready;
    {
      std::unique_lock<std::mutex> l(queues.mu);
      if (wait) queues.done_cv.wait(l, [&] { return queues.error || queues.publishing == 0; });
      if (queues.error) std::rethrow_exception(queues.error);
      ready.swap(queues.done);
    }
    std::vector<ReleaseOutcome> outcomes;
    for (JobPtr& job : ready) {
      outcomes.push_back(applier.Apply(*job));
      jobs.Erase(job->partition);
    }
    return outcomes;  // the jobs, and the events they hold, are freed here, on the consuming thread
  }

  engine::Schema schema;
  release::PayloadTransformer payload;  // for the published time bucket only (const use)
  StoreShareState share_state;
  ShareContext ctx;
  ReleaseQueues queues;
  ReleaseLogReader log;
  ShareCollector collector;
  JobRegistry jobs;
  SharePreparer preparer;
  ShareApplier applier;
  ComputePool pool;
  TransactionLoop loop;
};

ReleaseRunner::ReleaseRunner(const config::Config& config, int sensitive_extra, state::StateStore* store,
                             kafka::TransactionalProducer* producer, ReleaseMetricsExporter* metrics,
                             OutputTopology topology, DpPublisher* dp)
    : rep_(std::make_unique<Rep>(config, sensitive_extra, store, producer, metrics, topology, dp)) {}

ReleaseRunner::~ReleaseRunner() = default;

void ReleaseRunner::Precompute(const std::vector<int32_t>& partitions, const TaskRegistry& tasks) {
  rep_->jobs.Precompute(partitions, tasks);
}

void ReleaseRunner::Submit(const std::vector<ShareRequest>& shares, const TaskRegistry& tasks) {
  rep_->preparer.Submit(shares, tasks);
}

void ReleaseRunner::DropPrecomputed() { rep_->jobs.DropPrecomputed(); }

void ReleaseRunner::ForgetPartitions(const std::vector<int32_t>& partitions) {
  rep_->jobs.ForgetPartitions(partitions);
}

bool ReleaseRunner::InFlight(int32_t partition) const { return rep_->jobs.InFlight(partition); }

std::vector<ReleaseOutcome> ReleaseRunner::Apply(bool wait) { return rep_->Apply(wait); }

uint64_t ReleaseRunner::waiting() const { return rep_->applier.Waiting(); }

void ReleaseRunner::SetChangelog(ChangelogWriter* changelog) {
  rep_->preparer.SetChangelog(changelog);
  rep_->loop.SetChangelog(changelog);
}

void ReleaseRunner::SetPartialSealer(seal::RecordSealer* sealer) { rep_->collector.SetPartialSealer(sealer); }

int64_t ReleaseRunner::BatchOpenSince() const { return rep_->loop.BatchOpenSince(); }

}  // namespace vanon::service
