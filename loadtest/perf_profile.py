#!/usr/bin/python3
"""Summarises a perf profile of vanon: where its CPU went, by thread, by
leaf function and by chosen frames anywhere on the stack (inclusive), over
the window a benchmark measured.

    perf record -k CLOCK_MONOTONIC -F 999 --call-graph dwarf,32768 -p PID -o vanon.data
    perf script -i vanon.data > vanon.txt
    loadtest/perf_profile.py vanon.txt [--window BENCH_LOG] [--thread NAME] [--top 25]
                             [FRAME ...]

--window takes the stderr of bench_ingest_e2e, whose "vanon window:
monotonic A B" line bounds the measured window (samples outside it, such as
start-up, the warm-up and the shutdown, are left out). Each FRAME is a
substring of a function name; its line says which share of the samples had
it anywhere on their stack. Percentages are of all samples kept.
"""
import argparse
import collections
import re
import sys


def read_samples(path):
    """[(time, thread, [leaf, caller, ...])] from `perf script` text."""
    samples, cur = [], None
    for line in open(path, errors="replace"):
        line = line.rstrip()
        if not line:
            if cur:
                samples.append(cur)
            cur = None
            continue
        if line[0] not in " \t":
            m = re.search(r"\s(\d+\.\d+):", line)
            cur = (float(m.group(1)) if m else 0.0, line.split()[0], [])
            continue
        parts = line.strip().split(None, 1)
        if cur is not None and len(parts) == 2:
            cur[2].append(re.sub(r"\+0x[0-9a-f]+$", "", parts[1].split(" (")[0]))
    if cur:
        samples.append(cur)
    return samples


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("script_output")
    ap.add_argument("frames", nargs="*")
    ap.add_argument("--window", help="bench_ingest_e2e stderr with its 'vanon window: monotonic A B' line")
    ap.add_argument("--thread", help="only this thread (its name as perf shows it)")
    ap.add_argument("--top", type=int, default=25)
    a = ap.parse_intermixed_args()
    samples = read_samples(a.script_output)
    if a.window:
        m = re.search(r"vanon window: monotonic ([\d.]+) ([\d.]+)", open(a.window).read())
        if not m:
            sys.exit(f"{a.window}: no 'vanon window' line")
        w0, w1 = float(m.group(1)), float(m.group(2))
        samples = [s for s in samples if w0 <= s[0] <= w1]
        print(f"window {w1 - w0:.2f} s")
    total = len(samples)
    if total == 0:
        sys.exit("no samples")
    print(f"{total} samples; by thread:",
          ", ".join(f"{t} {100 * n / total:.1f}%" for t, n in collections.Counter(s[1] for s in samples).most_common()))
    if a.thread:
        samples = [s for s in samples if s[1] == a.thread]
        print(f"thread {a.thread}: {len(samples)} samples")
    print("leaf functions (% of all samples):")
    leaves = collections.Counter((s[2][0] if s[2] else "?")[:110] for s in samples)
    for name, n in leaves.most_common(a.top):
        print(f"  {100 * n / total:5.1f}%  {name}")
    if a.frames:
        print("anywhere on the stack (% of all samples):")
    for f in a.frames:
        n = sum(1 for s in samples if any(f in x for x in s[2]))
        print(f"  {100 * n / total:5.1f}%  {f}")


if __name__ == "__main__":
    main()
