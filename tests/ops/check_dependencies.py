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
from source_areas import AREA_ALIASES, SERVICE_PUBLIC, SPLIT_AREAS, area_of, source_files  # noqa: E402

# area -> what it may include besides itself and the standard/system headers.
# '*' marks the wiring area (the command line) that may include any vanon area.
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
    'alloc': set(),
    'version': set(),
    # The service, one row per role (docs/architecture.md, "Roles"). A role
    # includes only roles listed above it here; service is service.cc, the
    # composition root and the stream thread.
    'service/support': {'base', 'prometheus', 'spdlog'},
    # The state manager: stored record names, the state around a release,
    # ShareState and its RocksDB adapter, store-wide records.
    'service/store': {'dp', 'engine', 'release', 'state', 'spdlog'},
    # What one input partition owns while it is assigned (PartitionTask), and
    # the registry that creates and destroys the tasks. ingest: the stored
    # form of a buffered event, read when a task is loaded.
    'service/task': {'service/store', 'config', 'ingest', 'release', 'state'},
    # The DP publisher and its modes.
    'service/dp': {'service/support', 'service/store', 'base', 'config', 'dp', 'engine', 'ingest', 'kafka', 'release',
                   'seal', 'prometheus', 'spdlog'},
    # One partition's share of a release, over ShareState: no Kafka, no RocksDB.
    'service/share': {'service/support', 'service/store', 'service/dp', 'config', 'engine', 'ingest', 'release', 'state',
                      'spdlog'},
    # The record collector: changelog records, prepare records, offsets.
    'service/collector': {'service/support', 'service/store', 'base', 'config', 'kafka', 'release', 'seal', 'state', 'librdkafka',
                          'spdlog', 'fmt'},
    # Parse, route, buffer.
    'service/ingest': {'service/support', 'service/store', 'service/task', 'config', 'fleet', 'ingest', 'kafka',
                       'release', 'state', 'version', 'prometheus'},
    # The changelog reader.
    'service/restore': {'service/support', 'service/collector', 'service/store', 'config', 'kafka', 'seal', 'state',
                        'prometheus', 'spdlog'},
    # The release runner: prepare, compute, the transaction, apply. service/dp:
    # the apply tells the DP publisher that a share's counts were committed.
    'service/release': {'service/support', 'service/store', 'service/task', 'service/dp', 'service/share',
                        'service/collector', 'base', 'config', 'engine', 'kafka', 'release', 'seal', 'state',
                        'prometheus', 'openssl', 'spdlog'},
    'service': {'service/store', 'service/task', 'service/dp', 'service/collector', 'service/ingest', 'service/restore',
                'service/release', 'config', 'http', 'kafka', 'seal', 'state', 'prometheus', 'spdlog'},
    # simdjson: `vanon tail` reads the summary records.
    'cli': {'*', 'openssl', 'spdlog', 'fmt', 'simdjson'},
}
WIRING_MAY_NOT = {'cli': set()}



def target_of(inc, quoted, here):
    p = inc.split('/')
    if inc.startswith('vanon/'):
        if p[1] == 'service' and len(p) > 2:
            return SERVICE_PUBLIC.get(p[2], 'service')
        return AREA_ALIASES.get(p[1], p[1])
    first = p[0]
    if quoted and first in SPLIT_AREAS and len(p) > 2:
        return first + '/' + p[1]  # "service/store/x.h"
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
