#include "parse.h"

namespace vanon::config::internal {

void ParsePrivacy(Section& root, PrivacyConfig* out) {
  Section s(root.diag(), root.Child("privacy"), "privacy");
  s.Enum("preset", &out->preset, PresetNames());
  s.Enum("model", &out->model,
         {{"m_invariance", PrivacyModel::kMInvariance}, {"k_anonymity", PrivacyModel::kKAnonymity}});
  if (out->model != PrivacyModel::kMInvariance) {
    // The preset's signature choices are m-invariance's; written in the
    // file they are refused below.
    out->shared_signatures = out->history_slots = out->learn_events = 0;
  }
  s.Int("m", &out->m, 2, 1000);
  s.Int("k", &out->k, 2, 1000);
  s.Int("l", &out->l, 0, 1000);
  s.Double("t", &out->t, 0, 1);
  s.Int("max_delay_epochs", &out->max_delay_epochs, 0, 1000);
  s.Int("signature_retention_days", &out->signature_retention_days, 1, 36500);
  if (s.Int("shared_signatures", &out->shared_signatures, 0, 10000) && out->shared_signatures > 0 &&
      out->model != PrivacyModel::kMInvariance) {
    s.Error("shared_signatures", "only with privacy.model: m_invariance (set 0)");
  }
  if (s.Int("shared_signature_size", &out->shared_signature_size, 0, 1000) && out->shared_signature_size != 0 &&
      out->shared_signature_size < out->m) {
    s.Error("shared_signature_size", "must be 0 (= m) or at least privacy.m (" + std::to_string(out->m) + ")");
  }
  for (auto [key, value] : {std::pair<const char*, int*>{"history_slots", &out->history_slots},
                            std::pair<const char*, int*>{"learn_events", &out->learn_events}}) {
    if (s.Int(key, value, 0, 1000000) && *value > 0 && out->model != PrivacyModel::kMInvariance) {
      s.Error(key, "only with privacy.model: m_invariance (set 0)");
    }
  }
  s.Double("history_min_share", &out->history_min_share, 0, 1, /*lo_open=*/true);
  if (out->learn_events > 0 && out->max_delay_epochs == 0) {
    // A vehicle that may not wait cannot learn: the preset's learning does
    // not apply (a config written before presets, with max_delay_epochs: 0,
    // keeps starting); asked for in the file, it is refused.
    if (s.Has("learn_events")) {
      s.Error("learn_events", "learning needs privacy.max_delay_epochs > 0 (a new vehicle waits at most that long)");
    } else {
      out->learn_events = 0;
    }
  }
  {
    Section e(root.diag(), s.Child("epoch"), s.PathOf("epoch"));
    e.Int("length_seconds", &out->epoch.length_seconds, 1, 604800);
    e.Int("allowed_lateness_seconds", &out->epoch.allowed_lateness_seconds, 0, 86400);
    e.Int("idle_timeout_seconds", &out->epoch.idle_timeout_seconds, 1, 86400);
    e.Bool("precompute", &out->epoch.precompute);
  }
  s.Enum("late_events", &out->late_events, {{"topic", LateEvents::kTopic}, {"drop", LateEvents::kDrop}});
}

}  // namespace vanon::config::internal
