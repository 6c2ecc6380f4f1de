// ShareApplier moves a partition past a share whose transaction committed,
// on the consuming thread: the task's clock closes the epoch and its
// progress counts the share, the share's apply batch (the records the
// changelog got) is committed to state and its signature and waiting
// changes to the task's memory of them, the partition's checker accepts
// the share, and the events of tuples still waiting go back to the task's
// buffer.
#ifndef VANON_SRC_SERVICE_RELEASE_SHARE_APPLIER_H_
#define VANON_SRC_SERVICE_RELEASE_SHARE_APPLIER_H_

#include <cstdint>
#include <map>

#include "service/release/release_job.h"
#include "service/release/release_runner.h"

namespace vanon::service {

class ShareApplier {
 public:
  // metrics and dp may be null.
  ShareApplier(state::StateStore* store, ReleaseMetricsExporter* metrics, DpPublisher* dp)
      : store_(store), metrics_(metrics), dp_(dp) {}

  // Gives the job's task back (job.task is empty afterwards).
  ReleaseOutcome Apply(ReleaseJob& job);

  // Tuples waiting, summed over the partitions applied so far.
  uint64_t Waiting() const;

 private:
  state::StateStore* store_;
  ReleaseMetricsExporter* metrics_;
  DpPublisher* dp_;
  std::map<int32_t, uint64_t> waiting_;
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_RELEASE_SHARE_APPLIER_H_
