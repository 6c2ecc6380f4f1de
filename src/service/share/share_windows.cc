#include "service/share/share_windows.h"

#include <optional>
#include <stdexcept>
#include <string>

#include "service/share/dictionary_id_error.h"

namespace vanon::service {

bool KeepsValueWindows(const config::Config& c) {
  if (!c.sensitive || c.sensitive->aggregator == config::SensitiveAggregator::kRegistry) return false;
  const config::SensitiveConfig& s = *c.sensitive;
  return s.window_epochs > 1 || s.missing_policy == config::MissingPolicy::kCarry || c.privacy.history_slots > 0 ||
         c.privacy.learn_events > 0;
}

ShareWindows::ShareWindows(const config::Config& c, release::SensitiveDictionary* dictionary, int64_t epoch)
    : missing_value_(c.sensitive->missing_value),
      histories_(c.privacy.history_slots > 0 || c.privacy.learn_events > 0 || c.privacy.shared_signatures > 0),
      dictionary_(dictionary),
      epoch_(static_cast<uint64_t>(epoch)) {
  if (epoch < 0) throw std::runtime_error("value windows need epochs at or after 1970");
  const config::SensitiveConfig& s = *c.sensitive;
  // Other aggregators read one epoch: a window of 1 is the epoch's mode.
  params_.epochs = s.aggregator == config::SensitiveAggregator::kMode ? static_cast<uint32_t>(s.window_epochs) : 1;
  params_.missing = s.missing_policy == config::MissingPolicy::kCarry ? engine::MissingPolicy::kCarry
                                                                      : engine::MissingPolicy::kMissingValue;
  params_.carry_epochs = static_cast<uint32_t>(s.carry_epochs);
}

void ShareWindows::Load(const ShareState& state, int32_t partition, const std::vector<std::string>& vehicles) {
  const std::vector<std::optional<engine::ValueWindow>> stored = state.GetWindows(partition, vehicles);
  for (size_t i = 0; i < vehicles.size(); ++i) {
    if (!stored[i]) continue;
    // An id beyond the dictionary (damaged state) would later be read out of
    // bounds: the share stops here instead (dictionary_id_error.h).
    if (!stored[i]->IdsBelow(dictionary_->size())) {
      throw IdBeyondDictionary(partition, "a value window", dictionary_->size(), std::nullopt);
    }
    windows_.emplace(vehicles[i], *stored[i]);
  }
}

std::optional<engine::SensitiveId> ShareWindows::Advance(std::string_view vehicle,
                                                         const std::vector<engine::ValueCount>& counts) {
  auto [key, first] = advanced_.emplace(vehicle);
  if (!first) throw std::logic_error("value window advanced twice in one share");
  engine::ValueWindow& w = windows_[*key];
  // The missing value is interned only when some vehicle takes it.
  std::optional<engine::SensitiveId> value = w.Advance(epoch_, counts, params_);
  if (!value && missing_value_) value = dictionary_->Intern(*missing_value_);
  return value;
}

void ShareWindows::AddHistories(engine::ReleaseInput* in) const {
  if (!histories_) return;
  auto add = [&](const std::string& vehicle) {
    if (in->known_signatures.count(vehicle)) return;
    auto it = windows_.find(vehicle);
    if (it != windows_.end() && !it->second.history().empty()) in->histories[vehicle] = it->second.history();
  };
  for (const engine::Tuple& t : in->tuples) add(t.vehicle);
  for (const engine::WaitingTuple& w : in->waiting) add(w.tuple.vehicle);
}

void ShareWindows::WriteChanges(ShareDelta* delta) const {
  for (const std::string& vehicle : advanced_)
    delta->Add(ShareDelta::PutWindow{vehicle, windows_.find(vehicle)->second});
}

void PurgeWindows(const ShareState& state, int32_t partition, int64_t oldest, ShareDelta* delta) {
  state.ScanWindows(partition, [&](std::string_view vehicle, const engine::ValueWindow& w) {
    if (static_cast<int64_t>(w.advanced()) < oldest) delta->Add(ShareDelta::DeleteWindow{std::string(vehicle)});
    return true;
  });
}

}  // namespace vanon::service
