#!/usr/bin/env python3
"""Fails when the dashboard or the alert rules use a vanon_* metric that a
running vanon does not export.

usage: check_metric_names.py SCRAPE_FILE [DASHBOARD_OR_RULE_FILE ...]

SCRAPE_FILE is a Prometheus text-format scrape (curl .../metrics). Without
further arguments the repository's dashboard and rule files are checked.
A name ending in _bucket, _sum or _count is accepted when the scrape has the
base name as a histogram or summary, because the service's registry may
declare the family even before it has samples."""

import json
import os
import re
import sys

REPO = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEFAULT_FILES = [
    os.path.join(REPO, "deploy", "grafana", "vanon-dashboard.json"),
    os.path.join(REPO, "deploy", "prometheus", "vanon-alerts.yaml"),
]

# A metric name starts with vanon_ and is not part of a longer identifier:
# recording-rule names (vanon:...), alert names (Vanon...) and URL anchors
# (#vanonreleaseoverdue) do not match.
NAME = re.compile(r"(?<![A-Za-z0-9_:.#/-])vanon_[A-Za-z0-9_]*[A-Za-z0-9]")
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")
# name, optional {labels}, value, optional timestamp.
SAMPLE = re.compile(r"([A-Za-z_:][A-Za-z0-9_:]*)(?:\{.*\})?\s+(\S+)(?:\s+-?\d+)?$")


def strings_in(node):
    """Every string inside a JSON document (queries live in nested fields)."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for v in node.values():
            yield from strings_in(v)
    elif isinstance(node, list):
        for v in node:
            yield from strings_in(v)


def used_names(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if path.endswith(".json"):
        text = "\n".join(strings_in(json.loads(text)))
    else:
        # YAML comments may mention names in prose; only rule text counts.
        text = "\n".join(line.split(" #", 1)[0] for line in text.splitlines()
                         if not line.lstrip().startswith("#"))
    return set(NAME.findall(text))


def scraped(path):
    """Returns (sample names, {family: type}) from a text-format scrape."""
    samples, types = set(), {}
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            if line.startswith("#"):
                parts = line.split()
                if len(parts) >= 4 and parts[1] == "TYPE":
                    types[parts[2]] = parts[3]
                continue
            m = SAMPLE.match(line)
            if not m or not is_number(m.group(2)):
                raise ValueError(f"{path}:{lineno}: not a text-format sample: {line[:60]}")
            samples.add(m.group(1))
    return samples, types


def is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def exported(name, samples, types):
    if name in samples or name in types:
        return True
    for suffix in HISTOGRAM_SUFFIXES:
        if name.endswith(suffix):
            base = name[: -len(suffix)]
            if types.get(base) in ("histogram", "summary"):
                return True
    return False


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        samples, types = scraped(argv[1])
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    if not samples and not types:
        print(f"{argv[1]}: no metrics found; is it a scrape?", file=sys.stderr)
        return 2
    files = argv[2:] or DEFAULT_FILES
    missing = {}
    total = 0
    for path in files:
        names = used_names(path)
        if not names:
            print(f"{path}: uses no vanon_* metric; wrong file?", file=sys.stderr)
            return 2
        total += len(names)
        for name in sorted(names):
            if not exported(name, samples, types):
                missing.setdefault(name, []).append(os.path.relpath(path, REPO))
    if missing:
        print(f"{len(missing)} metric name(s) used but not exported by the scrape {argv[1]}:")
        for name, where in sorted(missing.items()):
            print(f"  {name}  (used in {', '.join(where)})")
        return 1
    print(f"ok: {total} metric name uses in {len(files)} file(s), all exported")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
