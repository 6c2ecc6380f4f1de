#!/usr/bin/env python3
"""Table of a loadtest/fuzz/run.sh run: per harness, executions per second,
libFuzzer's coverage counters, and how much of its decoders' code the run
reached (edges of the decoder functions, from -print_coverage).

  summarize.py --seconds N [--table FILE] HARNESS=RUN_DIR ...
"""
import argparse
import os
import re
import subprocess
import sys

# The code each harness exists to exercise: (file under the repository,
# regular expression a function's name must match; '' = every function).
CODING = ('src/base/coding.h', r'::Get')
DECODERS = {
    'event_parser': [('src/ingest/event_parser.cc', ''), ('src/ingest/json_path.cc', ''),
                     ('src/ingest/rfc3339.cc', ''), ('src/base/vin.cc', ''),
                     ('src/release/payload_transformer.cc', r'Rep::|::Write')],
    'payload_transformer': [('src/release/payload_transformer.cc', '')],
    'vin_table': [('src/fleet/vehicle/vin_decoder.cc', ''), ('src/fleet/vehicle/model_year.cc', ''),
                  ('src/fleet/vehicle/yaml_error.h', '')],
    'vehicle_registry': [('src/fleet/vehicle/vehicle_registry.cc', '')],
    'config': [('src/config/', '')],
    'hierarchy': [('src/engine/hierarchy.cc', '')],
    'buffered_event': [('src/ingest/buffered_event.cc', r'Decode|Get'), CODING],
    'state_records': [('src/state/release_state.cc', r'StoredSignature::Decode|DecodeWaitingTuple|DecodeFront'),
                      ('src/state/partition_progress.cc', r'Decode'), ('src/release/epoch_clock.cc', ''),
                      ('src/release/sensitive_dictionary.cc', r'DecodeState'), CODING],
    'changelog_record': [('src/service/collector/changelog_writer.cc', r'ChangelogKey'), ('src/state/key_codec.h', r'Decode'),
                         ('src/ingest/buffered_event.cc', r'Decode|Get'),
                         ('src/state/release_state.cc', r'Decode'), ('src/state/partition_progress.cc', r'Decode'),
                         ('src/release/epoch_clock.cc', r'DecodeState'),
                         ('src/release/sensitive_dictionary.cc', r'DecodeState'),
                         ('src/dp/tree_counter.cc', r'Deserialize|ParseDecimal'),
                         ('src/dp/window_counter.cc', r'Restore|Read'), ('src/dp/ledger_store.cc', r'Decode'),
                         ('src/service/dp/dp_partial.cc', r'Decode'), CODING],
    'dp_records': [('src/dp/tree_counter.cc', r'Deserialize|ParseDecimal'), ('src/dp/window_counter.cc', r'Restore|Read'),
                   ('src/dp/epsilon.cc', r'Parse'), ('src/dp/ledger_store.cc', r'Decode'),
                   ('src/service/dp/dp_partial.cc', r'Decode')],
    'sealed_record': [('src/seal/record_sealer.cc', r'Open|KeyIdOf|HeaderLength|HasMagic|Describe')],
    'keyring': [('src/seal/keyring.cc', r'Parse|ValidId|Trim'), ('src/base/hex.cc', r'HexDecode')],
    'release_log': [('src/state/release_state.cc', r'ReleaseLogEntry::Decode|DecodeFront|DecodeEpochOffsets'), CODING],
}

FUNC = re.compile(r'^(?:UN)?COVERED_FUNC: hits: (\d+) edges: (\d+)/(\d+) (.*) (\S+):\d+$')
STATUS = re.compile(r'^#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)/')


def repo_path(path):
    path = os.path.normpath(path)
    for top in ('/src/', '/include/'):
        at = path.rfind(top)
        if at >= 0:
            return path[at + 1:]
    return path


def summarize(harness, run_dir):
    text = open(os.path.join(run_dir, 'log'), errors='replace').read()
    stat = dict(re.findall(r'^stat::(\w+):\s+(\d+)', text, re.M))
    status = [m for m in map(STATUS.match, text.splitlines()) if m]
    covered = total = 0
    for line in text.splitlines():
        m = FUNC.match(line)
        if not m:
            continue
        path = repo_path(m.group(5))
        if any(path.startswith(f) and re.search(rx, m.group(4)) for f, rx in DECODERS[harness]):
            covered += int(m.group(2))
            total += int(m.group(3))
    found = sorted(f for f in os.listdir(os.path.join(run_dir, 'found')))
    done = re.search(r'^Done (\d+) runs in (\d+) second', text, re.M)
    return {
        'harness': harness,
        'seconds': int(done.group(2)) if done else None,
        'runs': int(stat.get('number_of_executed_units', 0)),
        'exec_s': int(stat.get('average_exec_per_sec', 0)),
        'cov': int(status[-1].group(2)) if status else 0,
        'ft': int(status[-1].group(3)) if status else 0,
        'corpus': int(status[-1].group(4)) if status else 0,
        'rss': int(stat.get('peak_rss_mb', 0)),
        'decoder': f'{covered}/{total} ({100.0 * covered / total:.0f}%)' if total else 'n/a',
        'found': ', '.join(found) if found else 'none',
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--seconds', type=int, required=True)
    ap.add_argument('--table')
    ap.add_argument('runs', nargs='+')
    a = ap.parse_args()
    rows = [summarize(*r.split('=', 1)) for r in a.runs]
    head = ('| harness | run s | executions | exec/s (lower bound) | cov (edges) | ft (features) | corpus units '
            '| decoder edges reached | peak RSS MB | findings |')
    lines = [head, '|' + '---|' * 10]
    for r in rows:
        secs = r['seconds'] if r['seconds'] is not None else 'stopped'
        lines.append(f"| {r['harness']} | {secs} | {r['runs']:,} | {r['exec_s']:,} | {r['cov']:,} | {r['ft']:,} "
                     f"| {r['corpus']:,} | {r['decoder']} | {r['rss']} | {r['found']} |")
    table = '\n'.join(lines)
    print(table)
    if a.table:
        rev = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()
        load = open('/proc/loadavg').read().split()[:3]
        with open(a.table, 'w') as out:
            out.write(f'Fuzzing run at {rev}: `loadtest/fuzz/run.sh --seconds {a.seconds}`, {os.cpu_count()} cores, '
                      f'load average at the end {" ".join(load)}.\n\n{table}\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
