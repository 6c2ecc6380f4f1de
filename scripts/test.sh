#!/usr/bin/env bash
# Builds vanon and runs every test: unit, integration (mock Kafka, the real
# binaries, the Debian prometheus server) and ops checks, then the unit
# tests once more under AddressSanitizer + UndefinedBehaviorSanitizer.
# This is README command (b) and exactly what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh

JOBS="${VANON_JOBS:-$(nproc)}"

echo "== build (RelWithDebInfo) =="
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j "$JOBS"

echo "== tests =="
(cd build && ctest --output-on-failure -j "$JOBS" --timeout 900)

echo "== unit tests under ASan + UBSan =="
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DVANON_SANITIZE=ON -DVANON_BUILD_BENCHMARKS=OFF
cmake --build build-asan -j "$JOBS"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
   ctest --output-on-failure -j "$JOBS" -L unit --timeout 900)
