#!/bin/sh
# The function-size check must find what it should and fail when it should:
# on a fixture whose lengths are known (brace initializers, raw strings,
# comments and lambdas in it), with and without an allowlist.
set -eu
root="$1"
fixture="$root/tests/ops/testdata/style/src/long.cc"
check="$root/scripts/function_sizes.py"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

got="$(python3 "$check" --list --limit 10 "$fixture" | sed "s|$root/||")"
want="tests/ops/testdata/style/src/long.cc Long 12"
[ "$got" = "$want" ] || { echo "listed: '$got', want '$want'"; exit 1; }
got="$(python3 "$check" --list --limit 2 "$fixture" | sed "s|$root/||" | tr '\n' ';')"
want="tests/ops/testdata/style/src/long.cc Long 12;tests/ops/testdata/style/src/long.cc Short 3;"
[ "$got" = "$want" ] || { echo "listed: '$got', want '$want'"; exit 1; }

if python3 "$check" --limit 10 "$fixture" 2>/dev/null; then echo "no allowlist: passed"; exit 1; fi
echo "$fixture Long 12" > "$tmp/ok"
python3 "$check" --limit 10 --allowlist "$tmp/ok" "$fixture" || { echo "allowlisted: failed"; exit 1; }
echo "$fixture Long 11" > "$tmp/grown"
if python3 "$check" --limit 10 --allowlist "$tmp/grown" "$fixture" 2>/dev/null; then echo "grown: passed"; exit 1; fi
echo "$fixture Long 13" > "$tmp/shrunk"
if python3 "$check" --limit 10 --allowlist "$tmp/shrunk" "$fixture" 2>/dev/null; then echo "stale length: passed"; exit 1; fi
printf '%s Long 12\n%s Gone 90\n' "$fixture" "$fixture" > "$tmp/gone"
if python3 "$check" --limit 10 --allowlist "$tmp/gone" "$fixture" 2>/dev/null; then echo "gone: passed"; exit 1; fi
if python3 "$check" --limit 12 --allowlist "$tmp/ok" "$fixture" 2>/dev/null; then echo "now short: passed"; exit 1; fi
# The naming check must reject a fixture with one bad name of each kind.
names="$root/scripts/check_names.py"
if python3 "$names" "$root/tests/ops/testdata/names" 2>"$tmp/names"; then echo "bad names: passed"; exit 1; fi
[ "$(wc -l < "$tmp/names")" -eq 5 ] || { echo "bad names: want 5 reports, got:"; cat "$tmp/names"; exit 1; }
python3 "$names" "$root" || { echo "the tree's names: failed"; exit 1; }
echo "check-style self-test: ok"
