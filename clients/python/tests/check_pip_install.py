#!/usr/bin/python3
"""`pip install ./clients/python` works and the installed package passes the
unit tests: a throw-away venv over Debian's python3 and its site packages
(the dependencies), offline, then the tests run against the installed copy.

    check_pip_install.py        (exit 0 when installed and tested)
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_DIR = os.path.dirname(HERE)


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="vanon-reader-venv-") as venv:
        subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True)
        python = os.path.join(venv, "bin", "python")
        # Offline: the build uses the system's setuptools, the dependencies
        # are Debian's packages, seen through --system-site-packages.
        subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-build-isolation", "--no-index",
                        PACKAGE_DIR], check=True)
        where = subprocess.run([python, "-c", "import vanon_reader, sys; print(vanon_reader.__file__)"],
                               check=True, capture_output=True, text=True, cwd=venv).stdout.strip()
        if not where.startswith(venv):
            print(f"imported {where}, not the installed copy", file=sys.stderr)
            return 1
        schemas = os.path.join(os.path.dirname(where), "schemas")
        shipped = sorted(n for n in os.listdir(schemas) if n.endswith(".schema.json"))
        if os.path.islink(schemas) or not shipped:
            print(f"the installed package has no copy of the schemas: {schemas}", file=sys.stderr)
            return 1
        env = {**os.environ, "VANON_READER_INSTALLED": "1"}
        tests = subprocess.run([python, "-m", "unittest", "test_completeness", "test_records", "test_dp"],
                               cwd=HERE, env=env)
        print(f"installed into {venv}: {where}, schemas {shipped}")
        return tests.returncode


if __name__ == "__main__":
    sys.exit(main())
