#!/usr/bin/env python3
"""Fails when a tracked file has a name no one would give a file on purpose.

A shell accident (an unquoted `>` inside a string, a heredoc cut short) leaves
files named after the text it was writing, with spaces, pipes or quotes. Such
a name survives review because `ls` and diffs show it like any other. Usage:
check_file_names.py REPO_DIR [NAME...]; extra NAMEs are checked as if
tracked (the self-test feeds a known-bad name).
"""
import re
import subprocess
import sys

# Letters, digits and . _ - + / only; no component starting with '-'.
OK = re.compile(r"^(?!-)[A-Za-z0-9._+-]+(/(?!-)[A-Za-z0-9._+-]+)*$")


def main() -> int:
    repo = sys.argv[1]
    out = subprocess.run(["git", "-C", repo, "ls-files", "-z"], check=True,
                         capture_output=True).stdout
    names = [n.decode("utf-8", "replace") for n in out.split(b"\0") if n]
    if not names:
        print(f"{repo}: git ls-files listed no file", file=sys.stderr)
        return 1
    names += sys.argv[2:]
    bad = [n for n in names if not OK.match(n)]
    for n in bad:
        print(f"odd tracked file name: {n!r}", file=sys.stderr)
    print(f"{len(names)} names checked, {len(bad)} odd")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
