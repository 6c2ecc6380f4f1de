// TaskRegistry holds the PartitionTask of every input partition this
// instance has, and is the one place that creates and destroys them: Open()
// on assignment (or at a partition's first batch), Close() on revocation.
// Callers that need a task beyond one call (a release in flight, a
// precomputed share) keep it by its shared_ptr: a task closed meanwhile
// stays valid for them, detached from the registry, and the next Open()
// of its partition loads a new one from state. Consuming thread only.
#ifndef VANON_SRC_SERVICE_TASK_TASK_REGISTRY_H_
#define VANON_SRC_SERVICE_TASK_TASK_REGISTRY_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "service/task/partition_task.h"
#include "vanon/config.h"

namespace vanon::release {
class PayloadTransformer;
}  // namespace vanon::release

namespace vanon::state {
class StateStore;
}  // namespace vanon::state

namespace vanon::service {

class TaskRegistry {
 public:
  TaskRegistry(const state::StateStore* store, const config::EpochConfig& epoch);
  TaskRegistry(const TaskRegistry&) = delete;
  TaskRegistry& operator=(const TaskRegistry&) = delete;

  // The partition's task, loaded from state if it has none (payload: see
  // PartitionTask).
  PartitionTask& Open(int32_t partition, release::PayloadTransformer* payload);
  // The partition's task, or null if it has none.
  std::shared_ptr<PartitionTask> Find(int32_t partition) const;
  // Like Find(), but a partition without a task is a programming error.
  std::shared_ptr<PartitionTask> Get(int32_t partition) const;
  // Destroys the partitions' tasks, but for the holders of their shared_ptr.
  void Close(const std::vector<int32_t>& partitions);
  void ForEach(const std::function<void(const PartitionTask&)>& f) const;

 private:
  const state::StateStore* store_;
  const config::EpochConfig epoch_;
  std::map<int32_t, std::shared_ptr<PartitionTask>> tasks_;
};

}  // namespace vanon::service

#endif  // VANON_SRC_SERVICE_TASK_TASK_REGISTRY_H_
