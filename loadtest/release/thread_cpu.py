#!/usr/bin/env python3
"""CPU seconds per second of each thread name of a running process.

Usage: thread_cpu.py PID SECONDS

Reads /proc/PID/task/*/stat once a second and prints, per second, the CPU
each thread name used (user + system), biggest first. vanon names its
threads vanon-consume (when not the main thread), vanon-parse (the second
half of a large poll batch), vanon-release and vanon-compute; librdkafka and
RocksDB name theirs. This is how the README's
"where a release's time goes" figures were taken, during
bench_release_e2e.
"""
import collections
import os
import sys
import time


def sample(pid):
    used = collections.Counter()
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except OSError:
            continue  # the thread ended
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        used[name] += int(fields[11]) + int(fields[12])  # utime, stime
    return used


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    pid, seconds = sys.argv[1], int(sys.argv[2])
    hz = os.sysconf("SC_CLK_TCK")
    before = sample(pid)
    for _ in range(seconds):
        time.sleep(1)
        now = sample(pid)
        delta = {k: (now[k] - before.get(k, 0)) / hz for k in now}
        before = now
        busy = sorted(((v, k) for k, v in delta.items() if v > 0.02), reverse=True)
        print(time.strftime("%H:%M:%S"), f"total {sum(delta.values()):.2f}",
              " ".join(f"{k}={v:.2f}" for v, k in busy), flush=True)


if __name__ == "__main__":
    main()
