#!/usr/bin/env bash
# The one list of Debian packages vanon needs to build, test and demo.
# Every entry point (README commands, .ci/run) calls this script, so a fresh
# bookworm machine and a developer's long-lived one install the same set.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  librdkafka-dev librocksdb-dev prometheus-cpp-dev libyaml-cpp-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libsimdjson-dev libfmt-dev libcli11-dev libspdlog-dev libssl-dev
  libcpp-httplib-dev libjemalloc-dev
  prometheus kcat yamllint python3 python3-jsonschema python3-yaml python3-matplotlib curl
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
