#!/usr/bin/env bash
# Style checks that need no build, run by scripts/test.sh (so by CI):
#   - header guards: #ifndef VANON_<PATH>_H_ everywhere, no #pragma once;
#   - one pimpl name: Rep;
#   - a namespace per area: files of src/<area>/ and include/vanon/<area>/
#     open vanon::<area> (scripts/check_namespaces.py has the rule), no
#     `using namespace` in a header;
#   - function size: no function in src/ or include/ over 80 lines (as
#     clang-tidy's readability-function-size counts, .clang-tidy), except the
#     entries of scripts/function-size-allowlist.txt, which may only shrink;
#   - names of tests and benchmarks (files, executables, ctest names): one
#     scheme, docs/style.md (scripts/check_names.py);
#   - formatting: every C++ file as clang-format-14 makes it with
#     .clang-format (scripts/check-format.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
echo "-- header guards"
python3 scripts/check_header_guards.py || status=1
echo "-- pimpl name (Rep and rep_, as LevelDB)"
if git grep -nE '^\s*(struct|class) Impl;' -- src include; then
  echo "the private implementation is called Rep (member rep_), not Impl" >&2
  status=1
fi
echo "-- a namespace per area (vanon::<area>)"
python3 scripts/check_namespaces.py || status=1
echo "-- function size (limit 80 lines)"
python3 scripts/function_sizes.py --limit 80 --allowlist scripts/function-size-allowlist.txt src include || status=1
echo "-- test and benchmark names (docs/style.md)"
python3 scripts/check_names.py || status=1
echo "-- formatting (.clang-format, clang-format-14)"
bash scripts/check-format.sh || status=1
if [ "$status" -ne 0 ]; then
  echo "check-style: FAILED" >&2
else
  echo "check-style: ok"
fi
exit "$status"
