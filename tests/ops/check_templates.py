#!/usr/bin/env python3
"""Structural checks of the chart's Go templates, standing in for
`helm lint` (there is no helm binary on the build machines):
  - every if/with/range/define block is closed, and no `end` or `else` is
    stray;
  - every `include "name"` refers to a `define` in the chart;
  - every `.Files.Get "path"` names a file that exists in the chart.

usage: check_templates.py CHART_DIR"""

import os
import re
import sys

ACTION = re.compile(r"\{\{-?\s*(.*?)\s*-?\}\}", re.S)
OPENERS = ("if", "with", "range", "define", "block")


def check_file(path, text, problems):
    depth = []
    for m in ACTION.finditer(text):
        body = m.group(1)
        if body.startswith("/*"):
            continue
        word = body.split(None, 1)[0] if body else ""
        line = text.count("\n", 0, m.start()) + 1
        if word in OPENERS:
            depth.append((word, line))
        elif word == "end":
            if not depth:
                problems.append(f"{path}:{line}: `end` without an open block")
            else:
                depth.pop()
        elif word == "else":
            if not depth or depth[-1][0] not in ("if", "with", "range"):
                problems.append(f"{path}:{line}: `else` outside if/with/range")
    for word, line in depth:
        problems.append(f"{path}:{line}: `{word}` never closed")


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    chart = argv[1]
    tdir = os.path.join(chart, "templates")
    texts = {}
    for name in sorted(os.listdir(tdir)):
        with open(os.path.join(tdir, name), encoding="utf-8") as f:
            texts[os.path.join("templates", name)] = f.read()
    problems = []
    defined = set()
    for path, text in texts.items():
        check_file(path, text, problems)
        defined.update(re.findall(r'\{\{-?\s*define\s+"([^"]+)"', text))
    for path, text in texts.items():
        for name in re.findall(r'include\s+"([^"]+)"', text):
            if name not in defined:
                problems.append(f"{path}: include of undefined template \"{name}\"")
        for name in re.findall(r'\.Files\.Get\s+"([^"]+)"', text):
            if not os.path.isfile(os.path.join(chart, name)):
                problems.append(f"{path}: .Files.Get of missing file {name}")
    if problems:
        print("\n".join(problems))
        return 1
    print(f"ok: {len(texts)} templates, {len(defined)} defines, blocks balanced")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
