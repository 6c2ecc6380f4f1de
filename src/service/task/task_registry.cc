#include "service/task/task_registry.h"

#include <stdexcept>
#include <string>

namespace vanon::service {

TaskRegistry::TaskRegistry(const state::StateStore* store, const config::EpochConfig& epoch)
    : store_(store), epoch_(epoch) {}

PartitionTask& TaskRegistry::Open(int32_t partition, release::PayloadTransformer* payload) {
  auto it = tasks_.find(partition);
  if (it == tasks_.end()) {
    it = tasks_.emplace(partition, std::make_shared<PartitionTask>(*store_, epoch_, partition, payload)).first;
  }
  return *it->second;
}

std::shared_ptr<PartitionTask> TaskRegistry::Find(int32_t partition) const {
  auto it = tasks_.find(partition);
  return it == tasks_.end() ? nullptr : it->second;
}

std::shared_ptr<PartitionTask> TaskRegistry::Get(int32_t partition) const {
  std::shared_ptr<PartitionTask> task = Find(partition);
  if (!task) throw std::logic_error("no task for input partition " + std::to_string(partition));
  return task;
}

void TaskRegistry::Close(const std::vector<int32_t>& partitions) {
  for (int32_t p : partitions) tasks_.erase(p);
}

void TaskRegistry::ForEach(const std::function<void(const PartitionTask&)>& f) const {
  for (const auto& [p, task] : tasks_) f(*task);
}

}  // namespace vanon::service
