#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz with clang (ASan + UBSan +
# coverage feedback) into a build directory of their own, runs each for the
# given time, one after the other at the lowest CPU priority, and prints a
# table of executions per second and coverage reached (summarize.py).
#
#   loadtest/fuzz/run.sh [--seconds N] [--build DIR] [--table FILE] [--no-install] [HARNESS...]
#
#   --seconds N    run time per harness (default 600)
#   --build DIR    clang build directory (default build-fuzz; never the main build)
#   --table FILE   also write the table (markdown) to FILE
#   --no-install   do not run scripts/install-deps.sh --fuzz first
#   HARNESS...     a subset of: event_parser payload_transformer vin_table vehicle_registry config
#                  hierarchy buffered_event state_records changelog_record dp_records release_log
#                  sealed_record keyring
#
# Each harness's run directory (DIR/fuzz-runs/<harness>/) keeps the corpus it
# grew (seeded from tests/fuzz/corpus/<harness>, which is never written),
# its log, and what it found (crash-*, leak-*, oom-*, timeout-*). A finding,
# once fixed, goes to tests/fuzz/findings/<harness>/ (README.md).
set -euo pipefail
cd "$(dirname "$0")/../.."

ALL=(event_parser payload_transformer vin_table vehicle_registry config hierarchy buffered_event state_records
     changelog_record dp_records release_log sealed_record keyring)
SECONDS_EACH=600
BUILD=build-fuzz
TABLE=""
INSTALL=1
HARNESSES=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) SECONDS_EACH="$2"; shift 2 ;;
    --build) BUILD="$2"; shift 2 ;;
    --table) TABLE="$2"; shift 2 ;;
    --no-install) INSTALL=0; shift ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) HARNESSES+=("$1"); shift ;;
  esac
done
[ ${#HARNESSES[@]} -gt 0 ] || HARNESSES=("${ALL[@]}")
for h in "${HARNESSES[@]}"; do
  [[ " ${ALL[*]} " == *" $h "* ]] || { echo "unknown harness $h (one of: ${ALL[*]})" >&2; exit 2; }
done
case "$BUILD" in build|build-asan|build-tsan) echo "--build $BUILD is a main build directory" >&2; exit 2 ;; esac

[ "$INSTALL" -eq 0 ] || ./scripts/install-deps.sh --fuzz

echo "== build the harnesses (clang 14, $BUILD) =="
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_CXX_COMPILER=clang++-14 -DVANON_FUZZ=ON -DVANON_BUILD_BENCHMARKS=OFF \
  -DVANON_FAULT_POINTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  >/dev/null
targets=()
for h in "${HARNESSES[@]}"; do targets+=("${h}_fuzzer"); done
nice cmake --build "$BUILD" -j "${VANON_JOBS:-2}" --target "${targets[@]}"

dict_of() {
  case "$1" in
    event_parser|payload_transformer) echo tests/fuzz/dict/json.dict ;;
    config|vin_table) echo tests/fuzz/dict/yaml.dict ;;
    hierarchy|vehicle_registry) echo tests/fuzz/dict/csv.dict ;;
    keyring) echo tests/fuzz/dict/keyring.dict ;;
    *) echo tests/fuzz/dict/records.dict ;;
  esac
}
max_len_of() {
  case "$1" in
    config) echo 16384 ;;  # config/vanon.yaml, the largest seed, is about 12 KB
    *) echo 4096 ;;
  esac
}

export PATH="/usr/lib/llvm-14/bin:$PATH"  # llvm-symbolizer, for reports and -print_coverage
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:symbolize=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# The file loaders' harnesses write every input to a file (fuzz_support.h,
# ScratchDir): in memory when the machine has /dev/shm.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then export TMPDIR=/dev/shm; fi
logs=()
for h in "${HARNESSES[@]}"; do
  run="$BUILD/fuzz-runs/$h"
  # What an earlier run found stays, beside; found/ holds this run's only.
  if [ -n "$(ls -A "$run/found" 2>/dev/null)" ]; then mv "$run/found" "$run/found.$(date +%Y%m%d-%H%M%S)"; fi
  mkdir -p "$run/corpus" "$run/found"
  echo "== $h: ${SECONDS_EACH}s (nice 19) =="
  # -timeout: one input running 10 s is a hang; -malloc_limit_mb: a single
  # allocation of 1 GiB from a few KB of input is a finding too.
  set +e
  nice -n 19 "$BUILD/tests/fuzz/${h}_fuzzer" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
    -malloc_limit_mb=1024 -max_len="$(max_len_of "$h")" -dict="$(dict_of "$h")" -print_final_stats=1 \
    -print_coverage=1 -artifact_prefix="$run/found/" "$run/corpus" "tests/fuzz/corpus/$h" >"$run/log" 2>&1
  echo "exit $?" >>"$run/log"
  set -e
  grep -E "^#[0-9]+[[:space:]]+DONE|ERROR|SUMMARY|runtime error|invariant broken" "$run/log" | head -5 || true
  logs+=("$h=$run")
done

args=(--seconds "$SECONDS_EACH")
[ -z "$TABLE" ] || args+=(--table "$TABLE")
python3 loadtest/fuzz/summarize.py "${args[@]}" "${logs[@]}"
