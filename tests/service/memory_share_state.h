// An in-memory ShareState for unit tests of the release share: the state a
// share reads, kept in maps, and Apply() to carry a share's delta into the
// next one as the runner's apply batch would.
#ifndef VANON_TESTS_SERVICE_MEMORY_SHARE_STATE_H_
#define VANON_TESTS_SERVICE_MEMORY_SHARE_STATE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "service/store/share_state.h"

namespace vanon::service {

class MemoryShareState final : public ShareState {
 public:
  std::optional<std::string> GetMeta(int32_t partition, std::string_view name) const override {
    auto it = meta_.find({partition, std::string(name)});
    if (it == meta_.end()) return std::nullopt;
    return it->second;
  }
  std::vector<std::optional<state::StoredSignature>> GetSignatures(
      int32_t partition, const std::vector<std::string>& vehicles) const override {
    std::vector<std::optional<state::StoredSignature>> out;
    for (const std::string& v : vehicles) {
      auto it = signatures_.find({partition, v});
      out.push_back(it == signatures_.end() ? std::nullopt : std::optional<state::StoredSignature>(it->second));
    }
    return out;
  }
  void ScanSignatures(int32_t partition, const ShareState::SignatureVisitor& fn) const override {
    for (auto it = signatures_.lower_bound({partition, ""}); it != signatures_.end() && it->first.first == partition;
         ++it) {
      if (!fn(it->first.second, it->second)) return;
    }
  }
  std::vector<std::optional<engine::ValueWindow>> GetWindows(int32_t partition,
                                                             const std::vector<std::string>& vehicles) const override {
    std::vector<std::optional<engine::ValueWindow>> out;
    for (const std::string& v : vehicles) {
      auto it = windows_.find({partition, v});
      out.push_back(it == windows_.end() ? std::nullopt : std::optional<engine::ValueWindow>(it->second));
    }
    return out;
  }
  void ScanWindows(int32_t partition, const ShareState::WindowVisitor& fn) const override {
    for (auto it = windows_.lower_bound({partition, ""}); it != windows_.end() && it->first.first == partition; ++it) {
      if (!fn(it->first.second, it->second)) return;
    }
  }
  std::vector<engine::WaitingTuple> LoadWaiting(int32_t partition) const override {
    std::vector<engine::WaitingTuple> out;
    for (const auto& [key, w] : waiting_) {
      if (key.first == partition) out.push_back(w);
    }
    return out;
  }
  void CommitMetaNow(int32_t partition, std::string_view name, std::string_view value) override {
    meta_[{partition, std::string(name)}] = std::string(value);
    ++durable_commits_;
  }

  // What the apply batch of the delta would change (buffered events are not
  // kept: a share gets them handed in, not from state).
  void Apply(const ShareDelta& d) {
    for (const ShareDelta::Op& op : d.ops) {
      std::visit(
          [&](const auto& o) {
            using T = std::decay_t<decltype(o)>;
            if constexpr (std::is_same_v<T, ShareDelta::PutSignature>) {
              signatures_[{d.partition, o.vehicle}] = o.signature;
            } else if constexpr (std::is_same_v<T, ShareDelta::DeleteSignature>) {
              signatures_.erase({d.partition, o.vehicle});
            } else if constexpr (std::is_same_v<T, ShareDelta::PutWaiting>) {
              waiting_[{d.partition, o.waiting.tuple.vehicle}] = o.waiting;
            } else if constexpr (std::is_same_v<T, ShareDelta::DeleteWaiting>) {
              waiting_.erase({d.partition, o.vehicle});
            } else if constexpr (std::is_same_v<T, ShareDelta::PutWindow>) {
              windows_[{d.partition, o.vehicle}] = o.window;
            } else if constexpr (std::is_same_v<T, ShareDelta::DeleteWindow>) {
              windows_.erase({d.partition, o.vehicle});
            } else if constexpr (std::is_same_v<T, ShareDelta::PutMeta>) {
              meta_[{d.partition, o.name}] = o.value;
            } else if constexpr (std::is_same_v<T, ShareDelta::DeleteMeta>) {
              meta_.erase({d.partition, o.name});
            }
          },
          op);
    }
  }

  void PutSignature(int32_t partition, const std::string& vehicle, const state::StoredSignature& s) {
    signatures_[{partition, vehicle}] = s;
  }
  // Behind the share's back, as a lost record or a bad restore would.
  void EraseSignature(int32_t partition, const std::string& vehicle) { signatures_.erase({partition, vehicle}); }
  size_t signatures() const { return signatures_.size(); }
  size_t waiting() const { return waiting_.size(); }
  size_t windows() const { return windows_.size(); }
  int durable_commits() const { return durable_commits_; }

 private:
  using Key = std::pair<int32_t, std::string>;
  std::map<Key, std::string> meta_;
  std::map<Key, state::StoredSignature> signatures_;
  std::map<Key, engine::WaitingTuple> waiting_;
  std::map<Key, engine::ValueWindow> windows_;
  int durable_commits_ = 0;
};

}  // namespace vanon::service

#endif  // VANON_TESTS_SERVICE_MEMORY_SHARE_STATE_H_
