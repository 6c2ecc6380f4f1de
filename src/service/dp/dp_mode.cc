#include "service/dp/dp_mode.h"

namespace vanon::service {

DpCore::DpCore(const config::Config& config, std::string_view hmac_key, ShareState* state)
    : state(state),
      settings(DpSettingsFromConfig(config, hmac_key)),
      ledgers(state, settings.policy),
      vehicles(settings) {}

std::unique_ptr<DpMode> NewDpMode(DpCore* core) {
  if (core->settings.window_ms == 0) return NewReleaseCounts(core);
  if (core->settings.aggregating()) return NewGlobalCounts(core);
  return NewWindowCounts(core);
}

}  // namespace vanon::service
