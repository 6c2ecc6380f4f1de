#!/bin/sh
# The namespace check must refuse exactly the bad fixtures of
# tests/ops/testdata/namespaces (flat vanon, `using namespace` in a header,
# code in another area's namespace, vehicle/ outside vanon::fleet) and accept
# the good one (own area, a helper namespace, a forward declaration).
set -eu
root="$1"
fixtures="$root/tests/ops/testdata/namespaces"
check="$root/scripts/check_namespaces.py"
if got="$(python3 "$check" "$fixtures" 2>&1)"; then echo "bad fixtures passed"; exit 1; fi
want="include/vanon/vehicle/vin.h: never opens namespace vanon::fleet
include/vanon/vehicle/vin.h:6: opens namespace vanon::vehicle; files of this area use vanon::fleet (or vanon::fleet::<helper>)
src/engine/flat.h: never opens namespace vanon::engine
src/engine/flat.h:6: opens namespace vanon; files of this area use vanon::engine (or vanon::engine::<helper>)
src/engine/using.h:7: \`using namespace\` in a header
src/service/foreign.cc:6: opens namespace vanon::state; files of this area use vanon::service (or vanon::service::<helper>)"
got="$(printf '%s\n' "$got" | LC_ALL=C sort)"
[ "$got" = "$want" ] || { printf 'got:\n%s\nwant:\n%s\n' "$got" "$want"; exit 1; }
# The good fixture alone passes.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/service"
cp "$fixtures/src/service/good.cc" "$tmp/src/service/"
python3 "$check" "$tmp" || { echo "good fixture refused"; exit 1; }
echo "check-namespaces self-test: ok"
