#!/usr/bin/env python3
"""Prints a text-format scrape declaring every metric family listed in the
metrics contract (docs/metrics.md), so the dashboard and rules can be
checked against the contract without a running service:

  contract_scrape.py docs/metrics.md > contract.prom
  check_metric_names.py contract.prom"""

import re
import sys

ROW = re.compile(r"^\|\s*`(vanon_[a-z0-9_]+)`\s*\|\s*([a-z]+)")


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    families = []
    with open(argv[1], encoding="utf-8") as f:
        for line in f:
            m = ROW.match(line)
            if m:
                families.append((m.group(1), m.group(2)))
    if not families:
        print(f"{argv[1]}: no metric table rows found", file=sys.stderr)
        return 2
    for name, kind in families:
        if kind not in ("counter", "gauge", "histogram", "summary"):
            print(f"{argv[1]}: {name}: unknown type {kind}", file=sys.stderr)
            return 2
        print(f"# TYPE {name} {kind}")
        if kind not in ("histogram", "summary"):
            print(f"{name} 0")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
