#!/usr/bin/env bash
# Builds and runs the long-run utility benchmark (docs/utility.md): the
# service's release path under each privacy preset over a drifting fleet,
# 200 releases, m = 5 and 10. Prints the table, writes utility.csv,
# utility.txt and utility.png to OUT_DIR. Fails when the checker finds a
# violation. Extra arguments go to vanon-utility-run (e.g. --engine=1 adds
# the pure-engine pipelines for comparison, --shape=global another fleet).
#
#   loadtest/utility/run_utility.sh [BUILD_DIR [OUT_DIR [--flag=value ...]]]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
out=${2:-$build/utility}
shift $(($# < 2 ? $# : 2))
cmake --build "$build" --target vanon-utility-run
mkdir -p "$out"
"$build/loadtest/utility/vanon-utility-run" --csv="$out/utility.csv" "$@" | tee "$out/utility.txt"
# Debian's interpreter: a pyenv or venv python3 first in PATH lacks matplotlib.
/usr/bin/python3 "$root/loadtest/utility/plot_utility.py" "$out/utility.csv" "$out/utility.png"
echo "wrote $out/utility.csv, $out/utility.txt, $out/utility.png"
