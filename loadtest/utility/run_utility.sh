#!/usr/bin/env bash
# Builds and runs the long-run utility benchmark (docs/utility.md): prints the
# table, writes utility.csv, utility.txt and utility.png to OUT_DIR. Fails when
# the checker finds a violation. Extra arguments go to vanon-utility-run.
#
#   loadtest/utility/run_utility.sh [BUILD_DIR [OUT_DIR [--flag=value ...]]]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
out=${2:-$build/utility}
shift $(($# < 2 ? $# : 2))
cmake --build "$build" --target vanon-utility-run
mkdir -p "$out"
# --shared=20: privacy.shared_signatures: 20 (pipelines
# shared and shared0); later arguments override it.
"$build/loadtest/utility/vanon-utility-run" --csv="$out/utility.csv" --shared=20 "$@" | tee "$out/utility.txt"
# Debian's interpreter: a pyenv or venv python3 first in PATH lacks matplotlib.
/usr/bin/python3 "$root/loadtest/utility/plot_utility.py" "$out/utility.csv" "$out/utility.png"
echo "wrote $out/utility.csv, $out/utility.txt, $out/utility.png"
