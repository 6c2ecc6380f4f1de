#!/usr/bin/env python3
"""Fails when a template refers to a .Values path that values.yaml lacks.

usage: check_values_paths.py CHART_DIR

Helm renders a missing path as empty without complaint, so a typo in a
template (.Values.persistance.size) silently produces a broken manifest.
Paths reached through `with`/`range` dot-rebinding are not seen; the
templates use full .Values paths for anything that matters."""

import os
import re
import sys

import yaml

PATH = re.compile(r"\$?\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)")


def resolves(values, parts):
    node = values
    for part in parts:
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    chart = argv[1]
    with open(os.path.join(chart, "values.yaml"), encoding="utf-8") as f:
        values = yaml.safe_load(f)
    tdir = os.path.join(chart, "templates")
    bad, seen = [], 0
    for name in sorted(os.listdir(tdir)):
        with open(os.path.join(tdir, name), encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                for m in PATH.finditer(line):
                    seen += 1
                    parts = m.group(1).strip(".").split(".")
                    if not resolves(values, parts):
                        bad.append(f"templates/{name}:{lineno}: .Values.{'.'.join(parts)}")
    if seen == 0:
        print(f"{tdir}: no .Values references found; wrong directory?", file=sys.stderr)
        return 2
    if bad:
        print("paths used in templates but absent from values.yaml:")
        print("\n".join("  " + b for b in bad))
        return 1
    print(f"ok: {seen} .Values references, all in values.yaml")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
