#!/usr/bin/env python3
"""validate-config and run must agree on every refusal (issue 20).

`vanon run` and `vanon validate-config` both load the config through
LoadConfig (src/config), so every check made there refuses alike; a check
of the config made anywhere else only runs at `run`, after validate-config
said ok. This script finds, in src/ outside src/config, every thrown error
whose message names a config key (or the config file), and fails unless it
is listed below with the reason validate-config cannot decide it (it needs
the broker, the contents of a data file, or the environment).
tests/service/config_refusals_test.cc runs both commands over a table of
the checks moved into src/config.

Usage: check_refusals.py [ROOT]   (ROOT defaults to the repository; a
fixture root in tests/ops/testdata must be rejected).
"""
import pathlib
import re
import sys

# Config sections, as the first component of an error's key.
SECTIONS = ('kafka', 'input', 'vehicle', 'quasi_identifiers', 'sensitive', 'payload',
            'privacy', 'dp', 'state', 'http', 'security', 'logging')
# "privacy.m: ...", "dp.queries[0]...", "quasi-identifier 'x': ...", "kafka property 'x'".
KEY = re.compile(r'"(?:(?:%s)(?:\.[a-z_]|\[)|quasi-identifier \'|kafka property \')' %
                 '|'.join(re.escape(s) for s in SECTIONS))
CONFIG_FILE = re.compile(r'\b(?:config|c)\.path\s*\+')
THROW = re.compile(r'throw\s+std::(?:invalid_argument|runtime_error)\s*\(')

# (file, fragment of the message) -> why only `run` can decide it.
ALLOWED = {
    ('src/service/dp_aggregation.cc', 'dp.aggregation.partition'): 'checked against the input topic partition count',
    ('src/service/qi_resolver.cc', 'quasi_identifiers'): 'attribute names are in the VIN table or registry file',
    ('src/service/qi_resolver.cc', 'sensitive.registry_column'): 'column names are in the registry file',
    ('src/service/qi_resolver.cc', 'vehicle.fields'): 'also refused by src/config/consistency.cc; kept as a guard',
    ('src/http/http_server.cc', 'http.listen'): 'also refused by src/config/listen_address.cc; kept as a guard',
    ('src/release/schema_from_config.cc', 'quasi-identifier'):
        'also refused by src/config/parse_vehicle.cc (CheckCodeRange); kept as a guard',
    ('src/service/dp_publisher.cc', 'dp.aggregation.topic'): 'also refused by src/config/parse_dp.cc; kept as a guard',
    ('src/kafka/client_config.cc', 'kafka property'):
        'librdkafka decides which kafka.properties it accepts, and src/config may not link it',
}


def statements(text):
    """Each throw statement, joined onto one line, with its line number."""
    for m in THROW.finditer(text):
        end = text.find(';', m.end())
        yield text.count('\n', 0, m.start()) + 1, ' '.join(text[m.start():end].split())


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[2])
    bad = []
    used = set()
    for path in sorted((root / 'src').rglob('*.cc')):
        rel = path.relative_to(root).as_posix()
        if rel.startswith('src/config/'):
            continue
        for line, stmt in statements(path.read_text()):
            if not (KEY.search(stmt) or CONFIG_FILE.search(stmt)):
                continue
            hits = [k for k in ALLOWED if k[0] == rel and k[1] in stmt]
            if hits:
                used.update(hits)
                continue
            bad.append(f'{rel}:{line}: a config refusal outside src/config (validate-config would accept '
                       f'what run refuses; check it in src/config, or list it in {__file__} with why '
                       f'only run can decide it): {stmt[:120]}')
    if root == pathlib.Path(__file__).resolve().parents[2]:
        for k in sorted(set(ALLOWED) - used):
            bad.append(f'{k[0]}: listed refusal "{k[1]}" not found any more: remove it from ALLOWED')
    for b in bad:
        print(b, file=sys.stderr)
    if bad:
        return 1
    print(f'check_refusals: ok ({len(used)} refusals only run can decide, each listed with its reason)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
