#!/bin/sh
# The chart ships copies of the alert rules and the dashboard (Helm can only
# read files inside the chart). Fails when a copy differs from its source in
# deploy/; fix with:
#   cp deploy/prometheus/vanon-alerts.yaml helm/vanon/files/
#   cp deploy/grafana/vanon-dashboard.json helm/vanon/files/
set -u
chart=$1
deploy=$2
fail=0
for pair in "prometheus/vanon-alerts.yaml vanon-alerts.yaml" \
            "grafana/vanon-dashboard.json vanon-dashboard.json"; do
  set -- $pair
  if ! cmp -s "$deploy/$1" "$chart/files/$2"; then
    echo "FAIL: $chart/files/$2 differs from $deploy/$1"
    fail=1
  fi
done
[ $fail -eq 0 ] && echo "ok: chart files match deploy/"
exit $fail
