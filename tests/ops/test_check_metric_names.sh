#!/bin/sh
# Tests check_metric_names.py itself on handmade files: a scrape that
# exports everything passes; one lacking a gauge and a histogram family
# fails and names exactly those.
set -u
here=$(cd "$(dirname "$0")" && pwd)
check="$here/check_metric_names.py"
data="$here/testdata"
fail=0

out=$(python3 "$check" "$data/scrape_ok.prom" "$data/uses.json" "$data/uses.yaml" 2>&1)
rc=$?
if [ $rc -ne 0 ]; then echo "FAIL: complete scrape rejected (rc=$rc):"; echo "$out"; fail=1; fi

out=$(python3 "$check" "$data/scrape_missing.prom" "$data/uses.json" "$data/uses.yaml" 2>&1)
rc=$?
if [ $rc -ne 1 ]; then echo "FAIL: incomplete scrape accepted (rc=$rc):"; echo "$out"; fail=1; fi
for name in vanon_privacy_required_group_size vanon_event_to_publication_latency_seconds_bucket; do
  echo "$out" | grep -q "^  $name " || { echo "FAIL: $name not reported missing:"; echo "$out"; fail=1; }
done
n=$(echo "$out" | grep -c '^  vanon_')
if [ "$n" -ne 2 ]; then echo "FAIL: expected 2 missing names, got $n:"; echo "$out"; fail=1; fi

# A file that is not a scrape is a usage error, not a pass.
out=$(python3 "$check" "$data/uses.yaml" "$data/uses.json" 2>&1)
rc=$?
if [ $rc -ne 2 ]; then echo "FAIL: non-scrape input gave rc=$rc"; echo "$out"; fail=1; fi

[ $fail -eq 0 ] && echo "ok: check_metric_names.py passes, fails and reports as expected"
exit $fail
