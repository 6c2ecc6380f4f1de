#!/usr/bin/env python3
"""One naming scheme for tests and benchmarks (docs/style.md), checked.

- A file under tests/ with a GoogleTest TEST/TEST_F/TEST_P is <unit>_test.cc.
- A file under loadtest/ with a Google Benchmark BENCHMARK() is
  <what>_benchmark.cc.
- Executables under tests/: vanon_<area>[_<what>]_tests, or programs a test
  runs: vanon_<area>_sample, vanon_<area>_canary, or libFuzzer binaries of
  the clang fuzz build: <decoder>_fuzzer.
- Executables under loadtest/: bench_<area>[_<what>] (benchmarks and load
  drivers), or vanon-<what> (report tools, like the shipped binaries).
- ctest names added by hand (add_test): <area>.<what>, lower case; the
  names gtest_discover_tests gives (Suite.Test) come from the sources.

Usage: check_names.py [ROOT] (default: the repository). A fixture root in
tests/ops/testdata/names must be rejected.
"""
import pathlib
import re
import sys

TEST_MACRO = re.compile(r'^\s*(?:TEST|TEST_F|TEST_P)\s*\(', re.M)
BENCH_MACRO = re.compile(r'^\s*BENCHMARK\s*\(', re.M)
ADD_EXE = re.compile(r'add_executable\(\s*([^\s)]+)')
ADD_TEST = re.compile(r'add_test\(\s*NAME\s+([^\s)]+)')
TESTS_EXE = re.compile(r'^vanon_[a-z0-9_]+_tests$|^vanon_[a-z0-9_]+_(?:sample|canary)$|^[a-z0-9_]+_fuzzer$')
LOADTEST_EXE = re.compile(r'^bench_[a-z0-9_]+$|^vanon-[a-z0-9-]+$')
CTEST_NAME = re.compile(r'^[a-z][a-z0-9_]*\.[a-z0-9_]+$')


def check(root):
    bad = []
    for top, macro, suffix in (('tests', TEST_MACRO, '_test.cc'), ('loadtest', BENCH_MACRO, '_benchmark.cc')):
        kind = 'GoogleTest tests' if top == 'tests' else 'Google Benchmark benchmarks'
        for path in sorted((root / top).rglob('*.cc')):
            rel = path.relative_to(root).as_posix()
            if '/testdata/' in rel:
                continue
            if macro.search(path.read_text(errors='replace')) and not rel.endswith(suffix):
                bad.append(f'{rel}: holds {kind}, so its name ends in {suffix}')
    for top, pattern, what in (('tests', TESTS_EXE, 'vanon_<area>[_<what>]_tests (or _sample, _canary, <x>_fuzzer)'),
                               ('loadtest', LOADTEST_EXE, 'bench_<area>[_<what>] or vanon-<what>')):
        for cmake in sorted((root / top).rglob('CMakeLists.txt')):
            rel = cmake.relative_to(root).as_posix()
            if '/testdata/' in rel:
                continue
            text = cmake.read_text()
            for name in ADD_EXE.findall(text):
                if not pattern.match(name):
                    bad.append(f'{rel}: executable {name}: name it {what}')
            for name in ADD_TEST.findall(text):
                # Placeholders of tests not built: <gtest name>.NOT_BUILT_...
                if '${' in name or '.NOT_BUILT_' in name or CTEST_NAME.match(name):
                    continue
                bad.append(f'{rel}: ctest name {name}: name it <area>.<what>')
    return bad


def main():
    here = pathlib.Path(__file__).resolve().parents[1]
    root = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else here
    bad = check(root)
    for b in bad:
        print(b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
