// privacy.preset: named defaults for the keys that decide how a drifting
// sensitive value is published over many releases (docs/config.md,
// "Presets"; the measurements behind them: docs/utility.md). A preset only
// supplies defaults: a key written in the file wins, and a preset's value
// that does not apply (a window under aggregator `last`, history slots
// under k-anonymity) is left at the key's plain default.
#include "parse.h"

namespace vanon::config {

const char* ToString(PrivacyPreset v) {
  switch (v) {
    case PrivacyPreset::kEpoch:
      return "epoch";
    case PrivacyPreset::kWindow:
      return "window";
    case PrivacyPreset::kHistory:
      return "history";
    case PrivacyPreset::kShared:
      return "shared";
  }
  return "?";
}

namespace internal {

const std::initializer_list<std::pair<const char*, PrivacyPreset>>& PresetNames() {
  static const std::initializer_list<std::pair<const char*, PrivacyPreset>> kNames = {
      {"epoch", PrivacyPreset::kEpoch},
      {"window", PrivacyPreset::kWindow},
      {"history", PrivacyPreset::kHistory},
      {"shared", PrivacyPreset::kShared}};
  return kNames;
}

PrivacyPreset PeekPreset(const YAML::Node& root) {
  // Const lookups: a missing key reads as undefined instead of being added.
  const YAML::Node& r = root;
  const YAML::Node privacy = r["privacy"];
  if (!privacy.IsDefined() || !privacy.IsMap()) return kDefaultPreset;
  const YAML::Node& p = privacy;
  const YAML::Node preset = p["preset"];
  if (preset.IsDefined() && preset.IsScalar()) {
    const std::string name = preset.Scalar();
    for (const auto& [n, p] : PresetNames()) {
      if (name == n) return p;
    }
  }
  return kDefaultPreset;
}

PresetValues ValuesOf(PrivacyPreset preset) {
  PresetValues v;
  v.privacy.preset = preset;
  switch (preset) {
    case PrivacyPreset::kEpoch:  // the plain defaults: no per-vehicle value state
      break;
    case PrivacyPreset::kWindow:
      v.sensitive.window_epochs = 6;
      v.sensitive.missing_policy = MissingPolicy::kCarry;
      v.sensitive.carry_epochs = 24;
      break;
    case PrivacyPreset::kHistory:
      v.sensitive.window_epochs = 3;
      v.sensitive.missing_policy = MissingPolicy::kCarry;
      v.sensitive.carry_epochs = 24;
      v.privacy.history_slots = 8;
      v.privacy.learn_events = 20;
      v.privacy.max_delay_epochs = 4;
      break;
    case PrivacyPreset::kShared:
      v.sensitive.window_epochs = 6;
      v.sensitive.missing_policy = MissingPolicy::kCarry;
      v.sensitive.carry_epochs = 24;
      v.privacy.shared_signatures = 20;
      v.privacy.learn_events = 10;
      v.privacy.max_delay_epochs = 3;
      break;
  }
  return v;
}

bool DiffersFromPreset(const Config& c, const PresetValues& preset) {
  const PrivacyConfig& p = c.privacy;
  const PrivacyConfig& q = preset.privacy;
  if (p.max_delay_epochs != q.max_delay_epochs || p.shared_signatures != q.shared_signatures ||
      p.shared_signature_size != q.shared_signature_size || p.history_slots != q.history_slots ||
      p.history_min_share != q.history_min_share || p.learn_events != q.learn_events) {
    return true;
  }
  if (!c.sensitive) return false;
  const SensitiveConfig& s = *c.sensitive;
  const SensitiveConfig& t = preset.sensitive;
  return s.window_epochs != t.window_epochs || s.missing_policy != t.missing_policy || s.carry_epochs != t.carry_epochs;
}

}  // namespace internal
}  // namespace vanon::config
