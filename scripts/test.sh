#!/usr/bin/env bash
# Checks style (scripts/check-style.sh), builds vanon and runs every test:
# unit, integration (mock Kafka, the real binaries, the Debian prometheus
# server) and ops checks, then the unit tests once more under
# AddressSanitizer + UndefinedBehaviorSanitizer, then the concurrency tests
# under ThreadSanitizer.
# This is README command (b) and exactly what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh

JOBS="${VANON_JOBS:-$(nproc)}"

echo "== style (header guards, function size) =="
./scripts/check-style.sh

echo "== build (RelWithDebInfo) =="
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVANON_FAULT_POINTS=ON
cmake --build build -j "$JOBS"

echo "== tests =="
(cd build && ctest --output-on-failure -j "$JOBS" --timeout 900)

echo "== unit tests under ASan + UBSan =="
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DVANON_SANITIZE=ON -DVANON_BUILD_BENCHMARKS=OFF \
  -DVANON_FAULT_POINTS=ON
cmake --build build-asan -j "$JOBS"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
   ctest --output-on-failure -j "$JOBS" -L unit --timeout 900)

# ThreadSanitizer over the concurrency tests only (label "concurrency": the
# service in-process with its consuming, release, computing and HTTP
# threads). Only their target is built, at -O1, to keep CI short.
echo "== concurrency tests under ThreadSanitizer =="
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DVANON_TSAN=ON -DVANON_BUILD_BENCHMARKS=OFF -DVANON_FAULT_POINTS=ON
cmake --build build-tsan -j "$JOBS" --target vanon_concurrency_tests
(cd build-tsan && ctest --output-on-failure -j "$JOBS" -L concurrency --timeout 900 --no-tests=error)
