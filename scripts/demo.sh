#!/usr/bin/env bash
# README command (a): install what is missing, build, and start `vanon demo`
# (embedded Kafka, a synthetic fleet, the real service, live metrics).
# Arguments are passed to `vanon demo`, e.g. --duration 60 --vehicles 5000.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)" --target vanon
exec ./build/src/cli/vanon demo "$@"
