// SharePreparer makes the shares of closed epochs durable before anything of
// them is published: one synced state batch with a release-log entry per
// share (a fresh seed, or the one a precomputation drew, and where the
// summary will be read back), with the changelog on also the prepare records
// on Kafka, and only then queues the shares for the release thread. A share
// prepared by an earlier process is resumed with its stored entry.
#ifndef VANON_SRC_SERVICE_RELEASE_SHARE_PREPARER_H_
#define VANON_SRC_SERVICE_RELEASE_SHARE_PREPARER_H_

#include <cstdint>
#include <map>
#include <vector>

#include "service/release/release_job.h"
#include "service/release/release_runner.h"
#include "vanon/config.h"

namespace vanon::state {
class StateStore;
}  // namespace vanon::state

namespace vanon::service {

class ChangelogWriter;
class JobRegistry;
class ReleaseLogReader;
class ShareCollector;
class TaskRegistry;

class SharePreparer {
 public:
  // Every argument must outlive the preparer.
  SharePreparer(const config::Config& config, state::StateStore* store, kafka::TransactionalProducer* producer,
                JobRegistry* jobs, const ReleaseLogReader& log, const ShareCollector& collector, ReleaseQueues* queues)
      : config_(config),
        store_(store),
        producer_(producer),
        jobs_(jobs),
        log_(log),
        collector_(collector),
        queues_(queues) {}

  // Before the first Submit.
  void SetChangelog(ChangelogWriter* changelog) { changelog_ = changelog; }

  // ReleaseRunner::Submit.
  void Submit(const std::vector<ShareRequest>& shares, const TaskRegistry& tasks);

 private:
  void CheckResumedEvents(const ShareRequest& s, const ReleaseJob& job, state::ReleaseLogEntry* entry,
                          state::ReleaseWrite* w);
  void PutPrepared(const ShareRequest& s, const std::map<int32_t, int64_t>& end_offsets, state::ReleaseLogEntry* entry,
                   state::ReleaseWrite* w);

  const config::Config& config_;
  state::StateStore* store_;
  kafka::TransactionalProducer* producer_;
  JobRegistry* jobs_;
  const ReleaseLogReader& log_;
  const ShareCollector& collector_;
  ReleaseQueues* queues_;
  ChangelogWriter* changelog_ = nullptr;
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_RELEASE_SHARE_PREPARER_H_
