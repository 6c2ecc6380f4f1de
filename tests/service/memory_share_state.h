// An in-memory ShareState for unit tests of the release share: the state a
// share reads, kept in maps, and Apply() to carry a share's delta into the
// next one as the runner's apply batch would.
#ifndef VANON_TESTS_SERVICE_MEMORY_SHARE_STATE_H_
#define VANON_TESTS_SERVICE_MEMORY_SHARE_STATE_H_

#include <cstdint>
#include <map>
#include <set>
#include <tuple>
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
  bool HasEventsBefore(int32_t partition, int64_t ts_ms) const override {
    auto it = events_.lower_bound({partition, INT64_MIN, INT64_MIN});
    return it != events_.end() && std::get<0>(*it) == partition && std::get<1>(*it) < ts_ms;
  }
  void CommitMetaNow(int32_t partition, std::string_view name, std::string_view value) override {
    meta_[{partition, std::string(name)}] = std::string(value);
    ++durable_commits_;
  }

  // What the apply batch of the delta would change. Of buffered events only
  // the keys the events family would hold are kept (a share gets the events
  // handed in, not from state); a waiting record's events are kept with it.
  void Apply(const ShareDelta& d) {
    for (const ShareDelta::Op& op : d.ops) {
      std::visit(
          [&](const auto& o) {
            using T = std::decay_t<decltype(o)>;
            if constexpr (std::is_same_v<T, ShareDelta::PutEvent>) {
              events_.insert({d.partition, o.ts_ms, o.offset});
            } else if constexpr (std::is_same_v<T, ShareDelta::DeleteEvent>) {
              events_.erase({d.partition, o.ts_ms, o.offset});
            } else if constexpr (std::is_same_v<T, ShareDelta::DeleteEventRange>) {
              events_.erase(events_.lower_bound({d.partition, o.from_ms, INT64_MIN}),
                            events_.lower_bound({d.partition, o.to_ms, INT64_MIN}));
            } else if constexpr (std::is_same_v<T, ShareDelta::PutSignature>) {
              signatures_[{d.partition, o.vehicle}] = o.signature;
            } else if constexpr (std::is_same_v<T, ShareDelta::DeleteSignature>) {
              signatures_.erase({d.partition, o.vehicle});
            } else if constexpr (std::is_same_v<T, ShareDelta::PutWaiting>) {
              waiting_[{d.partition, o.waiting.tuple.vehicle}] = o.waiting;
              waiting_events_[{d.partition, o.waiting.tuple.vehicle}] = o.events;
            } else if constexpr (std::is_same_v<T, ShareDelta::DeleteWaiting>) {
              waiting_.erase({d.partition, o.vehicle});
              waiting_events_.erase({d.partition, o.vehicle});
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

  // An event in the events family, as a store written before waiting
  // records carried their events holds one.
  void PutEventKey(int32_t partition, int64_t ts_ms, int64_t offset) { events_.insert({partition, ts_ms, offset}); }
  size_t event_keys() const { return events_.size(); }
  // Takes the events out of the partition's waiting records and leaves
  // their keys in the events family: the layout of a store written before
  // records carried their events. Returns how many.
  size_t MoveWaitingEventsToTheEventsFamily(int32_t partition) {
    size_t n = 0;
    for (auto& [key, events] : waiting_events_) {
      if (key.first != partition) continue;
      for (const state::WaitingEvent& e : events) events_.insert({partition, e.ts_ms, e.offset});
      n += events.size();
      events.clear();
    }
    return n;
  }
  // The events stored inside the partition's waiting records.
  std::vector<state::WaitingEvent> WaitingEvents(int32_t partition) const {
    std::vector<state::WaitingEvent> out;
    for (const auto& [key, events] : waiting_events_) {
      if (key.first == partition) out.insert(out.end(), events.begin(), events.end());
    }
    return out;
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
  std::map<Key, std::vector<state::WaitingEvent>> waiting_events_;
  std::set<std::tuple<int32_t, int64_t, int64_t>> events_;  // (partition, ts, offset) in the events family
  std::map<Key, engine::ValueWindow> windows_;
  int durable_commits_ = 0;
};

}  // namespace vanon::service

#endif  // VANON_TESTS_SERVICE_MEMORY_SHARE_STATE_H_
