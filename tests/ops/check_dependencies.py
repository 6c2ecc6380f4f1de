#!/usr/bin/env python3
"""Layering: every #include of src/<area>/ and include/vanon/<area>/ must be
allowed by the table below (areas of vanon, and the third-party libraries
that make an area an adapter). The privacy engine and the DP core stay pure
libraries: no Kafka, RocksDB, HTTP, metrics, config or service.

  check_dependencies.py ROOT      exit 1 and one line per forbidden include
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'scripts'))
from source_areas import AREA_ALIASES, area_of, source_files  # noqa: E402

# area -> what it may include besides itself and the standard/system headers.
# '*' marks the wiring areas that may include any vanon area.
LIBS = {'rocksdb', 'librdkafka', 'prometheus', 'httplib', 'yaml-cpp', 'spdlog', 'simdjson', 'openssl', 'fmt'}
ALLOWED = {
    'base': {'fmt'},
    'engine': set(),
    'dp': {'base', 'openssl', 'fmt'},
    'ingest': {'base', 'openssl', 'simdjson'},
    'fleet': {'base', 'yaml-cpp'},
    # dp: validate-config parses epsilons as the DP core does (dp/epsilon.h),
    # so validate-config and run refuse the same values.
    'config': {'ingest', 'dp', 'yaml-cpp', 'fmt'},
    'release': {'base', 'engine', 'dp', 'ingest', 'fleet', 'config', 'openssl', 'simdjson', 'fmt'},
    'state': {'base', 'engine', 'rocksdb'},
    # Authenticated encryption of internal-topic values: OpenSSL only.
    'seal': {'base', 'openssl'},
    'kafka': {'librdkafka'},
    'http': {'httplib', 'prometheus'},
    'dp_store': {'dp', 'rocksdb'},
    'alloc': set(),
    'version': set(),
    'service': {'*', 'librdkafka', 'prometheus', 'simdjson', 'spdlog', 'openssl', 'fmt'},
    # simdjson: `vanon tail` reads the summary records.
    'cli': {'*', 'openssl', 'spdlog', 'fmt', 'simdjson'},
}
WIRING_MAY_NOT = {'service': {'cli'}, 'cli': set()}



def target_of(inc, quoted, here):
    if inc.startswith('vanon/'):
        p = inc.split('/')
        return AREA_ALIASES.get(p[1], p[1])
    first = inc.split('/')[0]
    if quoted:
        return first if '/' in inc and first in ALLOWED else here  # "base/x.h", or the area's own header
    lib = {'librdkafka': 'librdkafka', 'httplib.h': 'httplib', 'simdjson.h': 'simdjson'}.get(first, first)
    if lib.startswith('rdkafka'):
        lib = 'librdkafka'
    return lib if lib in LIBS else None


def violations(root):
    for rel, text in source_files(root):
        here = area_of(rel)
        allowed = ALLOWED.get(here)
        for n, line in enumerate(text.splitlines(), 1):
            m = re.match(r'\s*#\s*include\s*([<"])([^>"]+)[>"]', line)
            if not m:
                continue
            to = target_of(m.group(2), m.group(1) == '"', here)
            if to is None or to == here:
                continue
            if allowed is None:
                yield f'{rel}:{n}: area "{here}" is not in the table of tests/ops/check_dependencies.py'
                break
            ok = to in allowed or ('*' in allowed and to in ALLOWED and to not in WIRING_MAY_NOT[here])
            if not ok:
                yield f'{rel}:{n}: {here} may not include {m.group(2)} ({to})'


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    bad = list(violations(root))
    for v in bad:
        print(v, file=sys.stderr)
    print(f'check_dependencies: {len(bad)} forbidden include(s)')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
