#include <filesystem>

#include "diagnostics.h"
#include "overrides.h"
#include "parse.h"
#include "vanon/config.h"

namespace vanon::config {

using internal::Diagnostics;
using internal::Section;

namespace {

YAML::Node ReadYaml(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw ConfigError(path + ":1: (file): cannot read: not a regular file");
  }
  try {
    return YAML::LoadFile(path);
  } catch (const YAML::ParserException& e) {
    throw ConfigError(path + ":" + std::to_string(e.mark.line + 1) + ": (syntax): " + e.msg);
  } catch (const YAML::Exception& e) {
    throw ConfigError(path + ":1: (file): " + e.msg);
  }
}

}  // namespace

Config LoadConfig(const std::string& path, const std::vector<std::string>& overrides, const ConfigCheck& check) {
  Diagnostics diag(path);
  YAML::Node root = ReadYaml(path);
  if (!root.IsMap()) {
    diag.Error("", "the config must be a mapping of sections");
    diag.ThrowIfAny();
  }
  internal::ApplyOverrides(overrides, root, &diag);
  diag.ThrowIfAny();

  Config config;
  config.path = std::filesystem::absolute(path).lexically_normal().string();
  const internal::PresetValues preset = internal::ValuesOf(internal::PeekPreset(root));
  {
    Section s(&diag, root, "");
    internal::ParseKafka(s, &config.kafka);
    internal::ParseInput(s, &config.input);
    internal::ParseVehicle(s, &config.vehicle);
    internal::ParseQuasiIdentifiers(s, &config.quasi_identifiers);
    internal::ParseSensitive(s, preset.sensitive, &config.sensitive);
    internal::ParsePayload(s, &config.payload);
    config.privacy = preset.privacy;
    internal::ParsePrivacy(s, &config.privacy);
    internal::ParseDp(s, &config.dp);
    internal::ParseService(s, &config);
  }
  diag.ThrowIfAny();
  config.privacy.preset_customized = internal::DiffersFromPreset(config, preset);
  internal::CheckConsistency(config, &diag);
  diag.ThrowIfAny();
  if (check) {
    try {
      check(config);
    } catch (const KeyError& e) {
      diag.Error(e.key, e.message);
    }
    diag.ThrowIfAny();
  }
  return config;
}

}  // namespace vanon::config
