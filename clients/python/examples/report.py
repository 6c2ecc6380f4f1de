#!/usr/bin/python3
"""A one-page report of what vanon published, from its downstream topics.

    /usr/bin/python3 clients/python/examples/report.py --bootstrap HOST:PORT --releases 6 --out report.png

Reads N complete releases with vanon_reader and draws three panels:
published and suppressed vehicles per release, the speed histogram of the
anonymized events by generalized vehicle type (body), and one DP query's
counts over time with the standard deviation of their noise as error bars.
Needs matplotlib (Debian python3-matplotlib). `vanon demo` prints this
command with its bootstrap address.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import List

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

try:
    from vanon_reader import Reader, Release
except ImportError:  # run from a checkout without `pip install ./clients/python`
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from vanon_reader import Reader, Release


def read(args: argparse.Namespace) -> List[Release]:
    releases: List[Release] = []
    with Reader(args.bootstrap, start=args.start, idle_timeout=args.idle_timeout,
                max_releases=args.releases) as reader:
        print(f"reading {args.releases} complete releases from {args.bootstrap} "
              f"({reader.partitions} input partitions)", flush=True)
        for release in reader:
            print(f"release {release.id}: {release.published} vehicles published, {release.suppressed} suppressed, "
                  f"{len(release.groups)} groups, {len(release.events)} events, {len(release.dp)} DP records",
                  flush=True)
            releases.append(release)
    return releases


def plot_publication(ax: plt.Axes, releases: List[Release]) -> None:
    x = list(range(len(releases)))
    published = [r.published for r in releases]
    suppressed = [r.suppressed for r in releases]
    ax.bar(x, published, label="published vehicles", color="tab:blue")
    ax.bar(x, suppressed, bottom=published, label="suppressed vehicles", color="tab:red")
    ax.set_xticks(x, [str(r.id) for r in releases], rotation=30, fontsize=7)
    ax.set_xlabel("release")
    ax.set_ylabel("vehicles")
    ratio = ax.twinx()
    ratio.plot(x, [r.suppression_ratio for r in releases], "k.-", label="suppression ratio")
    ratio.set_ylim(0, 1)
    ratio.set_ylabel("suppression ratio")
    lines = ax.get_legend_handles_labels()[0] + ratio.get_legend_handles_labels()[0]
    ax.legend(lines, [str(line.get_label()) for line in lines], fontsize=8, loc="upper left")
    ax.set_title("Published and suppressed vehicles per release")


def plot_speed(ax: plt.Axes, releases: List[Release], by: str) -> None:
    frames = [r.events for r in releases if not r.events.empty]
    column = f"qi.{by}"
    events = pd.concat(frames) if frames else pd.DataFrame()
    if events.empty or "payload.speed_kmh" not in events.columns or column not in events.columns:
        ax.text(0.5, 0.5, "no vehicle_speed events", ha="center")
        return
    speed = events[events["payload.speed_kmh"].notna()]
    labels = speed[column].value_counts().index[:6]
    width = 10.0
    bins = [width * i for i in range(int(speed["payload.speed_kmh"].max() // width) + 2)]
    ax.hist([speed[speed[column] == label]["payload.speed_kmh"] for label in labels], bins=bins,
            label=[str(label) for label in labels], stacked=False)
    ax.set_xlabel("speed_kmh (published in 10 km/h bins: lower bound)")
    ax.set_ylabel("anonymized events")
    ax.legend(title=f"{by} (generalized)", fontsize=8)
    ax.set_title(f"Speed by generalized {by}, anonymized events of {len(releases)} releases")


def plot_dp(ax: plt.Axes, releases: List[Release], query: str) -> None:
    rows = []
    for r in releases:
        counts = r.dp_window_counts()
        if counts.empty:
            continue
        counts = counts[counts["query"] == query].copy()
        start = counts["window_start_ms"].fillna(r.epoch_start_ms)
        counts["time"] = pd.to_datetime(start, unit="ms")
        rows.append(counts)
    if not rows:
        ax.text(0.5, 0.5, f"no DP counts of {query}", ha="center")
        return
    dp = pd.concat(rows)
    for i, (cell, series) in enumerate(dp.groupby("cell")):
        shift = pd.to_timedelta((i - 3) * 300, unit="ms")  # keep error bars of cells apart
        ax.errorbar(series["time"] + shift, series["noisy"], yerr=series["std"], fmt="o-", capsize=3,
                    markersize=3, label=cell)
    eps, std = dp["epsilon"].iloc[0], dp["std"].median()
    ax.axhline(0, color="grey", linewidth=0.5)
    ax.set_ylabel("noisy count (sum over partitions, unclamped)")
    ax.set_xlabel("time (UTC)")
    ax.legend(fontsize=7, ncol=4)
    ax.set_title(f"DP counts of {query} with +-1 std of the noise (epsilon {eps:g} per count, std {std:,.1f})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bootstrap", required=True, help="Kafka bootstrap servers")
    ap.add_argument("--releases", type=int, default=6, help="complete releases to read")
    ap.add_argument("--out", default="vanon-report.png", help="PNG file to write")
    ap.add_argument("--by", default="body", help="QI for the speed histogram (body, engine, ...)")
    ap.add_argument("--dp-query", default="vehicles_by_engine", help="DP count query to plot")
    ap.add_argument("--start", choices=["earliest", "latest"], default="earliest")
    ap.add_argument("--idle-timeout", type=float, default=120, help="give up after this many idle seconds")
    args = ap.parse_args()
    releases = read(args)
    if not releases:
        print("no complete release", file=sys.stderr)
        return 1
    fig, axes = plt.subplots(3, 1, figsize=(11, 13))
    plot_publication(axes[0], releases)
    plot_speed(axes[1], releases, args.by)
    plot_dp(axes[2], releases, args.dp_query)
    fig.tight_layout()
    fig.savefig(args.out, dpi=90)
    print(f"wrote {args.out} ({len(releases)} releases)")
    return 0 if len(releases) == args.releases else 1


if __name__ == "__main__":
    sys.exit(main())
