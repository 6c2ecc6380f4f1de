#!/usr/bin/env python3
"""Fails when a tracked file points outside the repository.

A fresh clone has nothing beside it, so code, tests and docs may only name
paths inside the repository. Usage: check_self_contained.py REPO_DIR [FILE...];
extra FILEs (outside git) are scanned too, which the self-test uses.
"""
import re
import subprocess
import sys

# Built from pieces so that this file does not match itself.
PATTERNS = [
    re.compile(r"\.\./" + "shared"),        # the steering folder beside the repo
    re.compile(r"(?<![\w.])/" + r"work/"),  # the developers' machines
]


def main() -> int:
    repo = sys.argv[1]
    out = subprocess.run(["git", "-C", repo, "ls-files", "-z"], check=True,
                         capture_output=True).stdout
    files = [repo + "/" + n.decode() for n in out.split(b"\0") if n]
    files += sys.argv[2:]
    hits = 0
    for path in files:
        try:
            with open(path, encoding="utf-8") as f:
                lines = f.readlines()
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
        for i, line in enumerate(lines, 1):
            if any(p.search(line) for p in PATTERNS):
                print(f"{path}:{i}: path outside the repository: {line.strip()[:120]}",
                      file=sys.stderr)
                hits += 1
    print(f"{len(files)} files scanned, {hits} paths outside the repository")
    return 1 if hits else 0


if __name__ == "__main__":
    sys.exit(main())
