#!/usr/bin/env python3
"""Every header git tracks under src/, include/, tests/ and loadtest/ uses the
guard its path gives (no #pragma once):

  include/vanon/dp/epsilon.h -> VANON_DP_EPSILON_H_   (the public include root)
  src/config/section.h       -> VANON_SRC_CONFIG_SECTION_H_
  tests/e2e/fleet_truth.h    -> VANON_TESTS_E2E_FLEET_TRUTH_H_

as #ifndef, #define (the first two directives) and a final `#endif  // GUARD`.
"""
import re
import subprocess
import sys


def guard_for(path):
    p = path[len('include/vanon/'):] if path.startswith('include/vanon/') else path
    p = re.sub(r'\.h(\.in)?$', '', p)
    return 'VANON_' + re.sub(r'[^A-Za-z0-9]', '_', p).upper() + '_H_'


def check(path):
    text = open(path, encoding='utf-8', errors='replace').read()
    g = guard_for(path)
    if re.search(r'^\s*#\s*pragma\s+once', text, re.M):
        return f'{path}: #pragma once; use #ifndef {g}'
    directives = re.findall(r'^\s*#\s*(\w+)\s*(.*?)\s*$', text, re.M)
    if len(directives) < 3 or directives[0] != ('ifndef', g) or directives[1] != ('define', g):
        return f'{path}: must start with #ifndef {g} / #define {g}'
    last = [ln for ln in text.rstrip().splitlines() if ln.strip()][-1].strip()
    if not re.fullmatch(r'#endif\s+//\s*' + re.escape(g), last):
        return f'{path}: must end with #endif  // {g}'
    return None


def main():
    files = subprocess.check_output(
        ['git', 'ls-files', '--cached', '--others', '--exclude-standard', '--', 'src/*.h', 'include/*.h',
         'include/*.h.in', 'tests/*.h', 'loadtest/*.h'], text=True).split()
    errors = [e for e in map(check, files) if e]
    for e in errors:
        print(e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
