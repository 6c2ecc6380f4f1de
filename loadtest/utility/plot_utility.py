#!/usr/bin/python3
"""Plots the CSV of vanon-utility-run: suppression, counterfeit ratio and NCP
per release, one column per m, one line per pipeline.

    loadtest/utility/plot_utility.py utility.csv utility.png

Needs matplotlib (Debian python3-matplotlib, in scripts/install-deps.sh);
/usr/bin/python3 so that a pyenv or venv interpreter does not hide it.
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    series = defaultdict(lambda: defaultdict(list))  # (m, pipeline) -> column -> values
    with open(argv[1], newline="") as f:
        for row in csv.DictReader(f):
            key = (int(row["m"]), row["pipeline"])
            for col in ("release", "suppression", "counterfeit_ratio", "ncp"):
                series[key][col].append(float(row[col]))
    ms = sorted({m for m, _ in series})
    metrics = [("suppression", "suppression ratio"), ("counterfeit_ratio", "counterfeit ratio"), ("ncp", "NCP")]
    fig, axes = plt.subplots(len(metrics), len(ms), figsize=(6 * len(ms), 9), sharex=True, squeeze=False)
    for c, m in enumerate(ms):
        for r, (col, label) in enumerate(metrics):
            ax = axes[r][c]
            for (mm, pipeline), data in sorted(series.items()):
                if mm == m:
                    ax.plot(data["release"], data[col], label=pipeline, linewidth=1)
            ax.set_ylim(0, 1)
            ax.grid(True, alpha=0.3)
            if c == 0:
                ax.set_ylabel(label)
            if r == 0:
                ax.set_title(f"m = {m}")
            if r == len(metrics) - 1:
                ax.set_xlabel("release")
    axes[0][0].legend()
    fig.tight_layout()
    fig.savefig(argv[2], dpi=90)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
