#!/usr/bin/env python3
"""Self-test of check_docs.py: in a small tree, every kind of reference it
checks once as it should be and once broken. The good document must pass,
and the bad one must fail with exactly one line per broken reference, so
the check can pass neither vacuously nor by matching nothing.

  test_check_docs.py VANON VANON_KAFKA
"""
import os
import subprocess
import sys
import tempfile

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'check_docs.py')

FILES = {
    'docs/a.md': '# A\n\n## Topic configuration\n',
    'docs/img/plot.png': '',
    'scripts/demo.sh': '',
    'config/demo.yaml': '',
    'src/engine/release.cc': '',
    'loadtest/engine/CMakeLists.txt': 'add_executable(bench_engine ...)\n',
    'clients/py/tests/parse.py': '',
}

GOOD = '''# Good
`docs/a.md`, "Topic configuration"; [a](docs/a.md#topic-configuration)
![plot](docs/img/plot.png), `src/engine/*.cc`, `src/<area>/`, `release.cc`
`build/loadtest/engine/bench_engine`, `build/out/table.txt`, `/tmp/x`, https://example.org/x
```sh
./scripts/demo.sh --rate 5   # `vanon demo` below; kubectl -n vanon logs x
vanon run --config config/demo.yaml --set kafka.bootstrap=127.0.0.1:9092
build/src/cli/vanon demo --duration 60 | vanon-kafka --brokers 1 --topic t:1
```
`vanon tail --config FILE --json`, `vanon --help`

A paragraph, then an indented code block:

    vanon validate-config config/demo.yaml

- a list item, and its continuation is prose, not code:

    vanon is streaming anonymization for cars, release after release
'''

# One broken reference per entry, on the entry's last line, and its message.
BAD = [
    ('`docs/b.md`', '`docs/b.md`: no such path in the tree'),
    ('[b](docs/b.md)', 'link `docs/b.md`: no such path docs/b.md'),
    ('`docs/a.md`, "Gone section"', '`docs/a.md`, "Gone section": no such section'),
    ('`src/engine/*.h`', '`src/engine/*.h`: no such path in the tree'),
    ('`release_runner.cc`', '`release_runner.cc`: no file of that name in the tree'),
    ('`build/loadtest/engine/bench_gone`',
     '`build/loadtest/engine/bench_gone`: no target bench_gone in loadtest/engine/CMakeLists.txt'),
    ('`vanon frobnicate`', '`vanon frobnicate`: no such subcommand in `vanon --help`'),
    ('`vanon run --config x --no-such-flag`',
     '`vanon run --no-such-flag`: no such flag in `vanon run --help`'),
    ('`vanon-kafka --partitions 3`', '`vanon-kafka --partitions`: no such option in `vanon-kafka --help`'),
    ('A paragraph.\n\n    vanon demo --no-such-flag',
     '`vanon demo --no-such-flag`: no such flag in `vanon demo --help`'),
]


def run(root, bins, doc):
    args = [sys.executable, CHECK, root] + [a for b in bins for a in ('--bin', b)] + [doc]
    return subprocess.run(args, capture_output=True, text=True, check=False)


def main(argv):
    bins = argv[1:3]
    failures = []
    with tempfile.TemporaryDirectory() as root:
        for path, text in FILES.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), 'w', encoding='utf-8') as f:
                f.write(text)
        with open(os.path.join(root, 'README.md'), 'w', encoding='utf-8') as f:
            f.write(GOOD)
        with open(os.path.join(root, 'clients/py/README.md'), 'w', encoding='utf-8') as f:
            f.write('`tests/parse.py`\n')
        expected, line = [], 0
        with open(os.path.join(root, 'BAD.md'), 'w', encoding='utf-8') as f:
            for text, message in BAD:
                f.write(f'{text}\n\n')
                line += text.count('\n') + 1
                expected.append(f'BAD.md:{line}: {message}')
                line += 1
        for doc in ('README.md', 'clients/py/README.md'):
            good = run(root, bins, doc)
            if good.returncode != 0 or good.stdout:
                failures.append(f'{doc} should pass: exit {good.returncode}\n{good.stdout}{good.stderr}')
        bad = run(root, bins, 'BAD.md')
        if bad.returncode != 1 or bad.stdout.splitlines() != expected:
            failures.append('BAD.md: expected exit 1 and\n  ' + '\n  '.join(expected) +
                            f'\ngot exit {bad.returncode} and\n{bad.stdout}{bad.stderr}')
    for f in failures:
        print(f, file=sys.stderr)
    print(f'{len(BAD)} broken references, {len(failures)} failures')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
