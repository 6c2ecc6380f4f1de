#!/usr/bin/env python3
"""validate-config and run must agree on every refusal.

`vanon run` and `vanon validate-config` both load the config through
LoadConfig (src/config), so every check made there refuses alike; a check
of the config made anywhere else only runs at `run`, after validate-config
said ok. This script finds, in src/ outside src/config, every thrown error
whose message names a config key (or the config file), and fails unless it
is listed below: either in CHECKED (made outside src/config, but by the
check both commands pass to LoadConfig, so validate-config makes it too)
or in RUN_ONLY with the reason validate-config cannot decide it (it needs
the broker or the environment).
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
THROW = re.compile(r'throw\s+(?:std::(?:invalid_argument|runtime_error)|(?:config::)?KeyError)\s*\(')

# (file, fragment of the message) -> how validate-config makes it too.
# `vanon run`, `vanon validate-config` and `vanon demo` (src/cli) pass
# service::QiResolver::Check to LoadConfig, which reports its KeyError at the
# key's line; tests/service/config_refusals_test.cc (Resolver) runs both.
RESOLVER = 'the QI resolver, LoadConfig\'s check in validate-config and run'
CHECKED = {
    ('src/service/ingest/qi_resolver.cc', 'quasi_identifiers'): RESOLVER + ': attribute names of the VIN table or registry',
    ('src/service/ingest/qi_resolver.cc', 'sensitive.registry_column'): RESOLVER + ': column names of the registry file',
    ('src/service/ingest/qi_resolver.cc', 'vehicle.fields'): RESOLVER + '; also refused by src/config/consistency.cc',
    ('src/service/ingest/qi_resolver.cc', 'KeyError(key, e.what())'):
        RESOLVER + ': the VIN table or registry file cannot be read (vehicle.vin_table, vehicle.registry.file)',
}

# (file, fragment of the message) -> why only `run` can decide it.
RUN_ONLY = {
    ('src/service/dp/dp_global_counts.cc', 'dp.aggregation.partition'):
        'needs the broker: checked against the input topic\'s partition count',
    # Not keyed by a config key, listed so that the run-only refusals are all
    # in one place: an existing internal topic (state changelog, DP
    # partials) with the wrong partition count or cleanup.policy, or one the
    # broker refuses to create (kafka.create_internal_topics).
    ('src/kafka/internal_topics.cc', 'std::runtime_error(why)'):
        'needs the broker: the internal topics\' partition counts and cleanup.policy',
    ('src/kafka/internal_topics.cc', 'cannot create'): 'needs the broker: it refuses to create an internal topic',
    # The key ring is a secret from the environment, which validate-config
    # never reads (src/cli/state_keys.cc refuses it first; this is the guard
    # for callers that build a Service by hand).
    ('src/service/service.cc', 'security.state_keys_env'):
        'needs the environment: the state key ring is a secret validate-config does not read',
    ('src/kafka/client_config.cc', 'kafka property'):
        'librdkafka decides which kafka.properties it accepts, and src/config may not link it',
}

# (file, fragment) -> the check in src/config that refuses the same config
# first; the copy outside is a guard for callers that build a Config by hand.
GUARDS = {
    ('src/http/http_server.cc', 'http.listen'): 'also refused by src/config/listen_address.cc; kept as a guard',
    ('src/release/schema_from_config.cc', 'quasi-identifier'):
        'also refused by src/config/parse_vehicle.cc (CheckCodeRange); kept as a guard',
    ('src/service/dp/dp_settings.cc', 'dp.aggregation.topic'): 'also refused by src/config/parse_dp.cc; kept as a guard',
}
ALLOWED = {**CHECKED, **GUARDS, **RUN_ONLY}


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
            hits = [k for k in ALLOWED if k[0] == rel and k[1] in stmt]
            used.update(hits)
            if hits or not (KEY.search(stmt) or CONFIG_FILE.search(stmt)):
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
    n = {name: len(used & set(d)) for name, d in (('checked', CHECKED), ('guards', GUARDS), ('run', RUN_ONLY))}
    print(f'check_refusals: ok (outside src/config: {n["checked"]} made by the check validate-config runs too, '
          f'{n["guards"]} guards of checks in src/config, {n["run"]} only run can decide; each listed with why)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
