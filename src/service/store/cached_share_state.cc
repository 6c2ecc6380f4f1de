#include "service/store/cached_share_state.h"

#include <stdexcept>

namespace vanon::service {

void CachedShareState::CheckPartition(int32_t partition) const {
  if (partition != partition_) {
    throw std::logic_error("release state of partition " + std::to_string(partition_) + " asked for partition " +
                           std::to_string(partition));
  }
}

std::optional<std::string> CachedShareState::GetMeta(int32_t partition, std::string_view name) const {
  return base_->GetMeta(partition, name);
}

std::vector<std::optional<state::StoredSignature>> CachedShareState::GetSignatures(
    int32_t partition, const std::vector<std::string>& vehicles) const {
  CheckPartition(partition);
  return memory_->GetSignatures(vehicles);
}

void CachedShareState::ScanSignatures(int32_t partition, const SignatureVisitor& fn) const {
  CheckPartition(partition);
  memory_->ScanSignatures(fn);
}

std::vector<std::optional<engine::ValueWindow>> CachedShareState::GetWindows(
    int32_t partition, const std::vector<std::string>& vehicles) const {
  return base_->GetWindows(partition, vehicles);
}

void CachedShareState::ScanWindows(int32_t partition, const WindowVisitor& fn) const {
  base_->ScanWindows(partition, fn);
}

std::vector<engine::WaitingTuple> CachedShareState::LoadWaiting(int32_t partition) const {
  CheckPartition(partition);
  return memory_->LoadWaiting();
}

bool CachedShareState::HasEventsBefore(int32_t partition, int64_t ts_ms) const {
  return base_->HasEventsBefore(partition, ts_ms);
}

void CachedShareState::CommitMetaNow(int32_t partition, std::string_view name, std::string_view value) {
  base_->CommitMetaNow(partition, name, value);
}

}  // namespace vanon::service
