#!/usr/bin/python3
"""The state changelog's cost at 100,000 events/s: the release
benchmark (loadtest/release, vanon as a child process on the mock cluster)
run with `state.changelog.enabled` true and false, alternating, so both see
the same machine load. Prints one table: median (min-max) of every run of
input throughput, release latency p50 and vanon's CPU seconds per million
input events, and the ratios on/off of the medians; `uptime` before each run.

    loadtest/changelog/run_changelog_cost.py [--runs 3] [--build build]
                                             [--release-args "..."]

CPU seconds per million events is the figure that resists a shared machine;
throughput and latency are only comparable between runs under equal load.
So the runs interleave (on, off, off, on, on, off, ...: neither mode always
goes first), and release latency is also compared pooled: every complete
release in the measured window of every run of a mode (a 30 s run has only
3; use --release-args "... --duration=120" for about 12 per run), with the
pooled p50 and p90 and a bootstrap 95% interval of the ratio of the pooled
medians (resampling releases within each mode).
"""
import argparse
import os
import random
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from run_benchmarks import ROOT, run_bench, spread  # noqa: E402

ARGS = "--rate=100000 --vehicles=100000 --partitions=16 --duration=30 --warmup=10 --kcat=0"
COLUMNS = [("vanon_in_per_s", "events/s in", "{:,.0f}"),
           ("input_lost", "input lost", "{:,.0f}"),
           ("release_p50_s", "release p50 s", "{:.2f}"),
           ("release_max_s", "release max s", "{:.2f}"),
           ("vanon_cpu_s_per_M", "CPU s per M events", "{:.2f}"),
           ("vanon_peak_rss_MB", "peak RSS MB", "{:,.0f}")]


def window_latencies(log_path):
    """Latency (s) of every complete release in the run's measured window."""
    out = []
    for line in open(log_path):
        m = re.match(r"release-latency t=[-\d.]+ s=([-\d.]+) in_window=1", line)
        if m:
            out.append(float(m.group(1)))
    return out


def quantile(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def bootstrap_ratio(on, off, draws=2000, seed=14):
    """95% interval of median(on) / median(off), releases resampled per mode."""
    rng = random.Random(seed)
    ratios = sorted(statistics.median(rng.choices(on, k=len(on))) /
                    max(1e-9, statistics.median(rng.choices(off, k=len(off)))) for _ in range(draws))
    return ratios[int(0.025 * draws)], ratios[int(0.975 * draws) - 1]


def print_pooled(lat):
    print("\nrelease latency pooled over every release of every run's window:\n")
    print("| changelog | releases | p50 s | p90 s | max s |")
    print("|---|---|---|---|---|")
    for mode in ("on", "off"):
        v = lat[mode]
        print(f"| {mode} | {len(v)} | {quantile(v, 0.5):.2f} | {quantile(v, 0.9):.2f} | {max(v):.2f} |")
    lo, hi = bootstrap_ratio(lat["on"], lat["off"])
    ratio = statistics.median(lat["on"]) / max(1e-9, statistics.median(lat["off"]))
    print(f"\npooled release p50 ratio on/off {ratio:.3f}, bootstrap 95% interval {lo:.3f}-{hi:.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="loadtest/results")
    ap.add_argument("--release-args", default=ARGS)
    a = ap.parse_args()
    binary = os.path.join(ROOT, a.build, "loadtest/release/bench_release_e2e")
    out = os.path.join(ROOT, a.out)
    os.makedirs(out, exist_ok=True)
    runs = {"on": [], "off": []}
    lat = {"on": [], "off": []}
    for i in range(a.runs):
        for mode in (("on", "off") if i % 2 == 0 else ("off", "on")):
            load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
            print(f"run {i + 1}/{a.runs} changelog {mode}: {load}", flush=True)
            flag = "--set=state.changelog.enabled=" + ("true" if mode == "on" else "false")
            log = os.path.join(out, f"changelog-{mode}-{i + 1}.log")
            bench = run_bench(binary, a.release_args.split() + [flag], log)
            runs[mode].append(bench)
            lat[mode] += window_latencies(log)
            print("  " + ", ".join(f"{h} {f.format(bench[c])}" for c, h, f in COLUMNS), flush=True)
    print(f"\nbench_release_e2e {a.release_args}, {a.runs} runs each: median (min-max)\n")
    print("| changelog | " + " | ".join(h for _, h, _ in COLUMNS) + " |")
    print("|---|" + "---|" * len(COLUMNS))
    for mode in ("on", "off"):
        print(f"| {mode} | " + " | ".join(spread([r[c] for r in runs[mode]], f) for c, _, f in COLUMNS) + " |")
    ratio = {c: statistics.median(r[c] for r in runs["on"]) / max(1e-9, statistics.median(r[c] for r in runs["off"]))
             for c, _, _ in COLUMNS if c != "input_lost"}
    print("\nratio on/off of the medians: " + ", ".join(f"{h} {ratio[c]:.3f}" for c, h, _ in COLUMNS if c in ratio))
    print_pooled(lat)


if __name__ == "__main__":
    main()
