#!/usr/bin/env python3
"""Fails unless every alert in the rule files has a section in the runbook
whose heading is the alert name, and the alert's runbook annotation points
at that section.

usage: check_runbook.py RUNBOOK.md RULES.yaml [RULES.yaml ...]"""

import re
import sys

import yaml


def anchor(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped."""
    return re.sub(r"[^a-z0-9 _-]", "", heading.strip().lower()).replace(" ", "-")


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        headings = [m.group(1).strip() for m in re.finditer(r"^#{2,3} +(.+)$", f.read(), re.M)]
    anchors = {anchor(h) for h in headings}
    problems, alerts = [], 0
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
        for group in doc.get("groups", []):
            for rule in group.get("rules", []):
                name = rule.get("alert")
                if not name:
                    continue
                alerts += 1
                if name not in headings:
                    problems.append(f"{path}: alert {name} has no '## {name}' section in {argv[1]}")
                link = rule.get("annotations", {}).get("runbook", "")
                target = link.rsplit("#", 1)[-1] if "#" in link else ""
                if target != anchor(name):
                    problems.append(f"{path}: alert {name}: runbook annotation '{link}' "
                                    f"does not point at #{anchor(name)}")
                elif target not in anchors:
                    problems.append(f"{path}: alert {name}: runbook annotation '{link}' "
                                    f"points at a missing section")
    if alerts == 0:
        print("no alerts found; wrong file?", file=sys.stderr)
        return 2
    if problems:
        print("\n".join(problems))
        return 1
    print(f"ok: {alerts} alerts, each with a runbook section")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
