// --set overrides: "dotted.key=value" applied to the parsed YAML tree before
// validation, so an overridden value is checked exactly like one in the file.

#ifndef VANON_SRC_CONFIG_OVERRIDES_H_
#define VANON_SRC_CONFIG_OVERRIDES_H_

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "diagnostics.h"

namespace vanon::config::internal {

// `root` must be a mapping. A numeric key addresses a list item. Records each
// overridden path in `diag`; malformed overrides are reported as "--set:N".
void ApplyOverrides(const std::vector<std::string>& overrides, YAML::Node root, Diagnostics* diag);

}  // namespace vanon::config::internal

#endif  // VANON_SRC_CONFIG_OVERRIDES_H_
