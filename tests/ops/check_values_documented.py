#!/usr/bin/env python3
"""Fails when a top-level or second-level key of values.yaml (config.* aside,
which docs/config.md documents) is missing from the chart README's table.

usage: check_values_documented.py CHART_DIR"""

import os
import sys

import yaml


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(os.path.join(argv[1], "values.yaml"), encoding="utf-8") as f:
        values = yaml.safe_load(f)
    with open(os.path.join(argv[1], "README.md"), encoding="utf-8") as f:
        readme = f.read()
    table = "\n".join(line for line in readme.splitlines() if line.startswith("| `"))
    missing = []
    for key, value in values.items():
        keys = [key]
        if isinstance(value, dict) and value and key not in ("config", "podSecurityContext",
                                                             "securityContext", "resources",
                                                             "probes"):
            keys = [f"{key}.{sub}" for sub in value]
        for k in keys:
            if f"`{k}" not in table:
                missing.append(k)
    if missing:
        print("values not in the README table: " + ", ".join(missing))
        return 1
    print(f"ok: {len(values)} top-level values documented")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
