#!/usr/bin/python3
"""Runs the README's end-to-end benchmarks several times and writes their
table (median, min and max of every run), the ratios to kcat the targets
are stated in, a plot of throughput and release latency over time, and the
cost curve (loadtest/release/run_cost_curve.py: fleet sizes and event rates),
so that anyone can redo the README figures.

    loadtest/run_benchmarks.py [--runs 3] [--build build] [--out loadtest/results]
                               [--update-readme] [--release-args "..."] [--no-cost-curve]
                               [--only ingest|release] [--from-logs]

Each run of bench_ingest_e2e and bench_release_e2e starts from nothing
(fresh mock cluster, fresh state). Both run vanon as its own process, so
the cost figure (CPU seconds per million input events) is vanon's own,
measured from /proc beside kcat's in the same run. Run it on an otherwise
idle machine: the benchmarks share the cores with the broker and the fleet.
Each benchmark waits (up to 150 s) for the 1-minute load to fall below 0.5
before it starts, and the table states the load it started at.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "release"))
import run_cost_curve  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The release window starts 40 s in, after the fleet's first four releases:
# those store every vehicle's first signature and carry tens of thousands
# of waiting records, and the event lists of the first epochs are sized
# from nothing (onboarding a fleet, not what a running service costs per
# event). `--release-args` with --warmup=10 measures them instead.
RELEASE_ARGS = "--rate=100000 --vehicles=100000 --partitions=16 --duration=30 --warmup=40 --kcat=1"
BEGIN, END = "<!-- run_benchmarks:begin -->", "<!-- run_benchmarks:end -->"

# (counter, heading, format) per benchmark, in table order.
INGEST = [
    ("vanon_events_per_s", "vanon events/s", "{:,.0f}"),
    ("kcat_events_per_s", "kcat -C events/s", "{:,.0f}"),
    ("vanon_over_kcat", "ratio", "{:.2f}"),
    ("vanon_cpu_s_per_M", "vanon CPU s per M events", "{:.2f}"),
    ("kcat_cpu_s_per_M", "kcat CPU s per M events", "{:.2f}"),
    ("vanon_cpu_over_kcat", "CPU ratio", "{:.1f}"),
    ("vanon_cold_events_per_s", "vanon cold events/s (whole topic)", "{:,.0f}"),
    ("load1", "1-min load at start", "{:.1f}"),
]
RELEASE = [
    ("vanon_in_per_s", "vanon events/s in", "{:,.0f}"),
    ("kcat_per_s", "kcat pass-through events/s", "{:,.0f}"),
    ("vanon_over_kcat", "ratio", "{:.2f}"),
    ("input_lost", "input lost", "{:,.0f}"),
    ("release_p50_s", "release p50 s", "{:.2f}"),
    ("release_max_s", "release max s", "{:.2f}"),
    ("vanon_cpu_s_per_M", "vanon CPU s per M events", "{:.2f}"),
    ("kcat_cpu_s_per_M", "kcat CPU s per M events", "{:.2f}"),
    ("vanon_cpu_over_kcat", "CPU ratio", "{:.1f}"),
    ("vanon_peak_rss_MB", "vanon peak RSS MB", "{:,.0f}"),
    ("load1", "1-min load at start", "{:.1f}"),
]


def wait_for_quiet(below=0.5, longest_s=150):
    """Waits (up to longest_s) for the 1-minute load to fall below `below`:
    a benchmark started right after another one shared the cores with its
    tail (ingest CPU per event rose by a third at a load of 1.5)."""
    deadline = time.time() + longest_s
    while load_average() >= below and time.time() < deadline:
        time.sleep(5)


def run_bench(binary, args, log_path):
    """One benchmark process; returns its counters and keeps its stderr."""
    wait_for_quiet()
    load1 = load_average()
    json_path = log_path + ".json"
    cmd = [binary] + args + ["--benchmark_out=" + json_path, "--benchmark_out_format=json"]
    with open(log_path, "w") as log:
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=log, cwd=ROOT)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} exited {proc.returncode}; see {log_path}")
    bench = json.load(open(json_path))["benchmarks"][0]
    if bench.get("error_occurred"):
        sys.exit(f"{binary}: {bench.get('error_message')}; see {log_path}")
    bench["load1"] = load1
    bench["revision"] = git_revision()
    with open(json_path, "w") as f:  # for --from-logs
        json.dump({"benchmarks": [bench]}, f)
    return bench


def git_revision():
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                          cwd=ROOT).stdout.strip()


def load_bench(log_path):
    """The counters a run_bench() call left beside its log."""
    bench = json.load(open(log_path + ".json"))["benchmarks"][0]
    bench["load1"] = bench.get("load1", float("nan"))
    return bench


def load_average():
    """The machine's 1-minute load average: the benchmarks share its cores."""
    return float(open("/proc/loadavg").read().split()[0])


def spread(values, fmt):
    """median (min-max)"""
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def table(title, command, columns, runs):
    lines = [f"**{title}**, {len(runs)} runs: median (min-max). Command: `{command}`", ""]
    lines.append("| " + " | ".join(h for _, h, _ in columns) + " |")
    lines.append("|" + "---|" * len(columns))
    lines.append("| " + " | ".join(spread([r[c] for r in runs], f) for c, _, f in columns) + " |")
    return "\n".join(lines)


def per_run_p50(runs, target=1.0, loose=2.0):
    """Each run's release p50, and how many meet the target."""
    p50 = [r["release_p50_s"] for r in runs]
    met = sum(1 for v in p50 if v <= target)
    met_loose = sum(1 for v in p50 if v <= loose)
    return (f"Release p50 per run: {', '.join(f'{v:.2f}' for v in p50)} s: at or under {target:g} s in "
            f"{met} of {len(p50)} runs (at or under {loose:g} s in {met_loose} of {len(p50)}).")


def targets(ingest, release):
    """The targets as ratios to kcat in the same runs: a table of medians
    (min-max), each with its target and whether every run met it."""
    def row(name, values, fmt, target, ok):
        met = sum(1 for v in values if ok(v))
        return f"| {name} | {spread(values, fmt)} | {target} | {met} of {len(values)} |"
    rows = [
        "| target | measured, median (min-max) | target | runs meeting it |",
        "|---|---|---|---|",
        row("ingest CPU per event, vanon / kcat -C", [r["vanon_cpu_over_kcat"] for r in ingest], "{:.2f}", "<= 2",
            lambda v: v <= 2),
        row("ingest rate, vanon / kcat -C", [r["vanon_over_kcat"] for r in ingest], "{:.2f}", ">= 0.9",
            lambda v: v >= 0.9),
        row("release CPU per event, vanon / kcat -C \\| kcat -P", [r["vanon_cpu_over_kcat"] for r in release],
            "{:.2f}", "<= 2", lambda v: v <= 2),
        row("release p50 s at 100,000 events/s", [r["release_p50_s"] for r in release], "{:.2f}", "<= 1",
            lambda v: v <= 1),
    ]
    return "\n".join(rows)


def series(log_path):
    """Per-second input rate and per-release latency from a release run's stderr."""
    rate, latency = [], []
    last = None
    for line in open(log_path):
        m = re.match(r"\[\s*([\d.]+)s\] produced (\d+) consumed (\d+)", line)
        if m:
            t, consumed = float(m.group(1)), int(m.group(3))
            if last is not None and t > last[0]:
                rate.append((t, (consumed - last[1]) / (t - last[0])))
            last = (t, consumed)
        m = re.match(r"release-latency t=([-\d.]+) s=([-\d.]+)", line)
        if m:
            latency.append((float(m.group(1)), float(m.group(2))))
    return rate, latency


def plot(logs, png, release_args):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    for i, log in enumerate(logs):
        rate, latency = series(log)
        if rate:
            top.plot([t for t, _ in rate], [r / 1000 for _, r in rate], label=f"run {i + 1}")
        if latency:
            bottom.plot([t for t, _ in latency], [s for _, s in latency], "o-", label=f"run {i + 1}")
    top.set_ylabel("vanon input, k events/s")
    top.set_ylim(bottom=0)
    top.legend(loc="lower right")
    bottom.set_ylabel("release complete after close, s")
    bottom.axhline(2.0, color="grey", linestyle="--", linewidth=1)
    bottom.set_xlabel("seconds since the measured window began")
    bottom.legend(loc="upper right")
    fig.suptitle("bench_release_e2e " + release_args, fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=100)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="loadtest/results")
    ap.add_argument("--release-args", default=RELEASE_ARGS)
    ap.add_argument("--update-readme", action="store_true", help="replace the table between the README's markers")
    ap.add_argument("--from-logs", action="store_true",
                    help="run nothing: tabulate and plot the runs the last call left in --out")
    ap.add_argument("--no-cost-curve", action="store_true", help="skip the cost curve (about 9 minutes a run)")
    ap.add_argument("--only", choices=["ingest", "release"],
                    help="run this benchmark only; the other's runs are those the last call left in --out")
    a = ap.parse_args()
    if a.runs < 3:
        print("note: the README wants at least 3 runs", file=sys.stderr)
    try:  # before the runs, not after them: the plot needs it
        import matplotlib  # noqa: F401
    except ImportError:
        sys.exit("matplotlib is missing for this Python: run the script as it is (/usr/bin/python3, "
                 "python3-matplotlib from scripts/install-deps.sh)")
    out = os.path.join(ROOT, a.out)
    os.makedirs(out, exist_ok=True)
    build = os.path.join(ROOT, a.build)
    ingest_bin = os.path.join(build, "loadtest/service/bench_ingest_e2e")
    release_bin = os.path.join(build, "loadtest/release/bench_release_e2e")
    ingest, release, logs = [], [], []
    for i in range(a.runs):
        ingest_log = os.path.join(out, f"ingest-{i + 1}.log")
        log = os.path.join(out, f"release-{i + 1}.log")
        logs.append(log)
        if a.from_logs:  # the runs of the last call, tabulated and plotted again
            ingest.append(load_bench(ingest_log))
            release.append(load_bench(log))
            continue
        if a.only == "release":
            ingest.append(load_bench(ingest_log))
        else:
            print(f"run {i + 1}/{a.runs}: ingest", file=sys.stderr, flush=True)
            ingest.append(run_bench(ingest_bin, [], ingest_log))
        if a.only == "ingest":
            release.append(load_bench(log))
        else:
            print(f"run {i + 1}/{a.runs}: release", file=sys.stderr, flush=True)
            release.append(run_bench(release_bin, a.release_args.split(), log))
    # --from-logs: the revision the runs recorded (runs before it was recorded: unknown).
    revisions = {r.get("revision", "an unrecorded revision") for r in ingest + release}
    revision = revisions.pop() if len(revisions) == 1 else "several revisions"
    if not a.from_logs and not a.only:
        revision = git_revision()
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    text = "\n".join([
        f"Measured {time.strftime('%Y-%m-%d')} at {revision} on {os.cpu_count()} cores ({cpu}) by "
        f"`loadtest/run_benchmarks.py --runs {a.runs}{' --no-cost-curve' if a.no_cost_curve else ''}`."
        + (f" The {a.only} runs are from a later call with `--only {a.only}`." if a.only else ""),
        "",
        "**Targets**, as ratios to kcat measured in the same runs:",
        "",
        targets(ingest, release),
        "",
        table("Ingest end to end", "build/loadtest/service/bench_ingest_e2e", INGEST, ingest),
        "",
        table("Releases end to end", "build/loadtest/release/bench_release_e2e " + a.release_args, RELEASE, release),
        "",
        per_run_p50(release),
        "",
        f"![throughput and release latency over time]({a.out}/benchmarks.png)",
    ])
    if not a.no_cost_curve:
        curve_args = ["--runs", str(a.runs), "--build", a.build, "--out", os.path.join(a.out, "cost-curve")]
        if a.from_logs:
            curve_args.append("--from-logs")
        print("cost curve", file=sys.stderr, flush=True)
        curve = run_cost_curve.main(curve_args)
        text += "\n\n**Cost curve** (fleet size and event rate): " + curve
    with open(os.path.join(out, "benchmarks.md"), "w") as f:
        f.write(text + "\n")
    plot(logs, os.path.join(out, "benchmarks.png"), a.release_args)
    print(text)
    if a.update_readme:
        readme = os.path.join(ROOT, "README.md")
        body = open(readme).read()
        if BEGIN not in body or END not in body:
            sys.exit(f"README.md has no {BEGIN} ... {END} markers")
        head, rest = body.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        open(readme, "w").write(head + BEGIN + "\n" + text + "\n" + END + tail)


if __name__ == "__main__":
    main()
