#!/usr/bin/python3
"""How vanon's cost grows with the fleet and with the event rate: runs
bench_release_e2e at 10,000, 100,000 and 1,000,000 vehicles at 100,000
events/s, and at 25,000 to 200,000 events/s with 100,000 vehicles, each
point --runs times, each run ending with a kill -9 and a restart on the same
state (--restore=1). Writes one table (median and min-max per point) and one
plot, and states the largest fleet one pod (vanon on the machine's cores)
served at 100,000 events/s with release p50 under 2 s, and what a fleet of
10 million vehicles would need by that figure.

    loadtest/release/run_cost_curve.py [--runs 3] [--build build]
        [--out loadtest/results/cost-curve] [--points all|fleet|rate]
        [--duration 30] [--warmup 10] [--partitions 16] [--from-logs]

Every run starts from nothing (fresh mock cluster and state). Run it on an
otherwise idle machine: vanon shares the cores with the mock broker, the
fleet generator and the read-back consumers. 64 input partitions by
default, not the 16 of the README's release benchmark: the mock broker
keeps about 5 MB per partition, and after a kill -9 the input since the
last release must still be there to be read again (at 100,000 events/s,
16 partitions hold about 3.5 s of it, 64 about 14 s).
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FLEET = [(10000, 100000), (100000, 100000), (1000000, 100000)]  # (vehicles, events/s)
RATE = [(100000, 25000), (100000, 50000), (100000, 100000), (100000, 200000)]
P50_LIMIT_S = 2.0
TARGET_FLEET = 10_000_000

# (counter, heading, format)
COLUMNS = [
    ("vanon_in_per_s", "events/s in", "{:,.0f}"),
    ("vanon_cpu_s_per_M", "CPU s per M events", "{:.2f}"),
    ("vanon_peak_rss_MB", "peak RSS MB", "{:,.0f}"),
    ("rss_kB_per_vehicle", "peak RSS per vehicle kB", "{:.2f}"),
    ("release_p50_s", "release p50 s", "{:.2f}"),
    ("release_max_s", "release max s", "{:.2f}"),
    ("restore_ready_s", "kill -9 to ready s", "{:.1f}"),
    ("restore_s", "kill -9 to caught up s", "{:.1f}"),
    ("input_lost", "input lost", "{:,.0f}"),
]


def command_flags(a, ap):
    """The options a run was given, those left at the parser's defaults omitted."""
    flags = [f"--runs {a.runs}"]
    for name in ["points", "warmup", "duration", "partitions"]:
        value = getattr(a, name)
        if value != ap.get_default(name):
            flags.append(f"--{name} {value:g}" if isinstance(value, float) else f"--{name} {value}")
    return " ".join(flags)


def points(which):
    chosen = {"fleet": FLEET, "rate": RATE, "all": FLEET + RATE}[which]
    seen, out = set(), []
    for p in chosen:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out


def log_name(out, vehicles, rate, run):
    return os.path.join(out, f"v{vehicles}-r{rate}-{run}.log")


def run_point(binary, vehicles, rate, run, a):
    """One benchmark process; its counters, its log kept beside them."""
    log = log_name(a.out_abs, vehicles, rate, run)
    js = log + ".json"
    cmd = [binary, f"--vehicles={vehicles}", f"--rate={rate}", f"--partitions={a.partitions}",
           f"--duration={a.duration}", f"--warmup={a.warmup}", "--kcat=0", "--restore=1",
           "--benchmark_out=" + js, "--benchmark_out_format=json"]
    load1 = float(open("/proc/loadavg").read().split()[0])
    with open(log, "w") as f:
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=f, cwd=ROOT)
    bench = json.load(open(js))["benchmarks"][0] if os.path.exists(js) else {}
    if proc.returncode != 0 or not bench or bench.get("error_occurred"):
        sys.exit(f"{' '.join(cmd)}: {bench.get('error_message', 'exit ' + str(proc.returncode))}; see {log}")
    bench.update(vehicles=vehicles, rate=rate, run=run, load1=load1, command=" ".join(cmd[1:7]),
                 revision=git_revision())
    with open(js, "w") as f:
        json.dump({"benchmarks": [bench]}, f)
    return bench


def git_revision():
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                          cwd=ROOT).stdout.strip()


def derived(b):
    b["rss_kB_per_vehicle"] = b["vanon_peak_rss_MB"] * 1024 / b["vehicles"]
    b["input_lost"] = b.get("input_lost", 0) + b.get("restore_input_lost", 0)
    return b


def spread(values, fmt):
    def show(v):  # -1: the benchmark's "did not happen" (no recovery within 180 s)
        return "none in 180 s" if v < 0 else fmt.format(v)
    return f"{show(statistics.median(values))} ({show(min(values))}-{show(max(values))})"


def table(runs):
    lines = ["| vehicles | offered events/s | " + " | ".join(h for _, h, _ in COLUMNS) + " |",
             "|---|---|" + "---|" * len(COLUMNS)]
    for (v, r) in sorted({(b["vehicles"], b["rate"]) for b in runs}, key=lambda p: (p[1] != 100000, p[1], p[0])):
        at = [b for b in runs if b["vehicles"] == v and b["rate"] == r]
        cells = [spread([b[c] for b in at], f) for c, _, f in COLUMNS]
        lines.append(f"| {v:,} | {r:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def median_of(runs, v, r, key):
    at = [b[key] for b in runs if b["vehicles"] == v and b["rate"] == r]
    return statistics.median(at) if at else None


def sizing(runs):
    """The largest measured fleet served at 100,000 events/s with release
    p50 under the limit in every run, and pods for TARGET_FLEET by it."""
    ok = []
    for v, r in FLEET:
        at = [b for b in runs if b["vehicles"] == v and b["rate"] == r]
        if at and all(b["release_p50_s"] < P50_LIMIT_S and b["input_lost"] == 0 and
                      b["vanon_in_per_s"] >= 0.98 * r for b in at):
            ok.append(v)
    if not ok:
        return ("No measured fleet size was served at 100,000 events/s with release p50 under "
                f"{P50_LIMIT_S:g} s in every run; the sizing cannot be read from this curve.")
    best = max(ok)
    largest_measured = max(v for v, _ in FLEET)
    bound = "at least " if best == largest_measured else ""
    pods = math.ceil(TARGET_FLEET / best)
    text = (f"**Sizing.** The largest fleet one pod (vanon on this machine's {os.cpu_count()} cores, shared with "
            f"the benchmark's broker and producers) served at 100,000 events/s with release p50 under "
            f"{P50_LIMIT_S:g} s in every run: {bound}{best:,} vehicles. By that figure a fleet of "
            f"{TARGET_FLEET:,} vehicles needs {'at most ' if bound else ''}{pods} pods, each with its share of the "
            "input partitions")
    if bound:
        text += f" ({largest_measured:,} is the largest fleet measured, not a limit found)"
    rate_ok = []
    for v, r in RATE:
        at = [b for b in runs if b["vehicles"] == v and b["rate"] == r]
        if at and all(b["release_p50_s"] < P50_LIMIT_S and b["input_lost"] == 0 and
                      b["vanon_in_per_s"] >= 0.98 * r for b in at):
            rate_ok.append(r)
    if rate_ok:
        text += (f". The fleet's event rate must fit too: at 100,000 vehicles one pod kept release p50 under "
                 f"{P50_LIMIT_S:g} s up to {max(rate_ok):,} events/s of those measured")
    return text + "."


def plot(runs, png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 3, figsize=(12, 6.5))
    for row, (sweep, x_key, x_label) in enumerate([(FLEET, "vehicles", "vehicles (100,000 events/s)"),
                                                   (RATE, "rate", "events/s (100,000 vehicles)")]):
        pts = [p for p in sweep if any(b["vehicles"] == p[0] and b["rate"] == p[1] for b in runs)]
        if not pts:
            continue
        xs = [p[0] if x_key == "vehicles" else p[1] for p in pts]
        for ax, keys, ylabel in [(axes[row][0], ["vanon_cpu_s_per_M"], "CPU s per M events"),
                                 (axes[row][1], ["rss_kB_per_vehicle"] if x_key == "vehicles" else
                                  ["vanon_peak_rss_MB"], "peak RSS kB per vehicle" if x_key == "vehicles"
                                  else "peak RSS MB"),
                                 (axes[row][2], ["release_p50_s", "release_max_s", "restore_s"], "seconds")]:
            for key in keys:
                def at(p):  # a recovery that did not happen (-1) is left out of the plot
                    return [b[key] for b in runs if (b["vehicles"], b["rate"]) == p and b[key] >= 0] or [math.nan]
                med = [statistics.median(at(p)) for p in pts]
                lo = [min(at(p)) for p in pts]
                hi = [max(at(p)) for p in pts]
                ax.errorbar(xs, med, yerr=[[m - l for m, l in zip(med, lo)], [h - m for m, h in zip(med, hi)]],
                            marker="o", capsize=3, label=key)
            ax.set_xscale("log")
            ax.set_xlabel(x_label)
            ax.set_ylabel(ylabel)
            ax.set_ylim(bottom=0)
            if len(keys) > 1:
                ax.legend(fontsize=7)
        axes[row][2].axhline(P50_LIMIT_S, color="grey", linestyle="--", linewidth=1)
    fig.suptitle("bench_release_e2e cost curve: median and min-max of the runs", fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=100)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default="loadtest/results/cost-curve")
    ap.add_argument("--points", choices=["all", "fleet", "rate"], default="all")
    ap.add_argument("--duration", type=float, default=30)
    ap.add_argument("--warmup", type=float, default=10)
    ap.add_argument("--partitions", type=int, default=64)
    ap.add_argument("--from-logs", action="store_true", help="run nothing: tabulate what --out holds")
    a = ap.parse_args(argv)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        sys.exit("matplotlib is missing for this Python: run the script with /usr/bin/python3 "
                 "(python3-matplotlib from scripts/install-deps.sh)")
    a.out_abs = os.path.join(ROOT, a.out)
    os.makedirs(a.out_abs, exist_ok=True)
    binary = os.path.join(ROOT, a.build, "loadtest/release/bench_release_e2e")
    runs = []
    pts = points(a.points)
    started = time.time()
    for run in range(1, a.runs + 1):  # runs interleaved over the points: drift hits every point alike
        for vehicles, rate in pts:
            log = log_name(a.out_abs, vehicles, rate, run)
            if a.from_logs:
                if os.path.exists(log + ".json"):
                    runs.append(derived(json.load(open(log + ".json"))["benchmarks"][0]))
                continue
            print(f"run {run}/{a.runs}: {vehicles:,} vehicles, {rate:,} events/s "
                  f"({time.time() - started:.0f} s so far)", file=sys.stderr, flush=True)
            runs.append(derived(run_point(binary, vehicles, rate, run, a)))
    if not runs:
        sys.exit(f"no runs in {a.out_abs}")
    revisions = {b.get("revision", "an unrecorded revision") for b in runs}
    revision = revisions.pop() if len(revisions) == 1 else "several revisions"
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    n = statistics.median(collections_count(runs))
    text = "\n".join([
        f"Measured {time.strftime('%Y-%m-%d')} at {revision} on {os.cpu_count()} cores ({cpu}), median "
        f"(min-max) of {n:g} runs per point, 1-min load {min(b['load1'] for b in runs):.1f}-"
        f"{max(b['load1'] for b in runs):.1f} at the runs' start. Command: `loadtest/release/run_cost_curve.py "
        f"{command_flags(a, ap)}` (each point: `build/loadtest/release/bench_release_e2e --vehicles=V --rate=R "
        f"--partitions={a.partitions} --duration={a.duration:g} --warmup={a.warmup:g} --kcat=0 --restore=1`).",
        "",
        table(runs),
        "",
        sizing(runs),
        "",
        f"![cost curve]({os.path.relpath(os.path.join(a.out_abs, 'cost-curve.png'), ROOT)})",
    ])
    with open(os.path.join(a.out_abs, "cost-curve.md"), "w") as f:
        f.write(text + "\n")
    plot(runs, os.path.join(a.out_abs, "cost-curve.png"))
    print(text)
    return text


def collections_count(runs):
    counts = {}
    for b in runs:
        counts[(b["vehicles"], b["rate"])] = counts.get((b["vehicles"], b["rate"]), 0) + 1
    return list(counts.values())


if __name__ == "__main__":
    main()
