#!/bin/bash
# A/B of the two runtime changes of 2026-11-25 (prefetch, huge pages) with one binary: "before" restores
# librdkafka's prefetch defaults and jemalloc's default THP mode; pairs
# interleave (before after, after before, ...). Run from anywhere after a
# build; prints one line of benchmark counters per run.
cd "$(dirname "$0")/../.."
OLD=(--set=kafka.consumer_properties.queued.min.messages=100000 --set=kafka.consumer_properties.queued.max.messages.kbytes=65536 --set=kafka.consumer_properties.fetch.error.backoff.ms=500)
OLDMC="dirty_decay_ms:30000,muzzy_decay_ms:30000,thp:default"
counters() { "$@" 2>&1 | tail -1 | tr ' ' '\n' | grep -E '^(vanon_events_per_s|kcat_events_per_s|vanon_over_kcat|vanon_cpu_s_per_M|kcat_cpu_s_per_M|vanon_cold|release_p50_s|release_max_s|vanon_in_per_s|kcat_per_s|vanon_peak_rss_MB|vanon_cpu_over_kcat)=' | tr '\n' ' '; echo; }
# pairs NAME COUNT BENCHMARK [ARGS...]
pairs() {
  local name=$1 count=$2; shift 2
  for pair in $(seq 1 "$count"); do
    if [ $((pair % 2)) = 1 ]; then order="before after"; else order="after before"; fi
    for w in $order; do
      echo -n "$name pair $pair $w load=$(cut -d' ' -f1 /proc/loadavg): "
      if [ "$w" = before ]; then MALLOC_CONF=$OLDMC counters "$@" "${OLD[@]}"; else counters "$@"; fi
    done
  done
}
pairs ingest 3 build/loadtest/service/bench_ingest_e2e
pairs release 2 build/loadtest/release/bench_release_e2e --rate=100000 --vehicles=100000 --partitions=16 --duration=30 --warmup=10 --kcat=1
echo done
