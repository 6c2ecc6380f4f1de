#!/usr/bin/env python3
"""A namespace per area: every .h/.cc under src/<area>/ and include/vanon/<area>/
opens `namespace vanon::<area>` (or a namespace nested in it, such as
vanon::config::internal for an area's private helpers), never the flat
`namespace vanon`, and no header says `using namespace`.

  src/engine/release.cc, include/vanon/engine/release.h  -> vanon::engine
  src/fleet/vehicle/, include/vanon/vehicle/             -> vanon::fleet (the VIN decoding
                                                            of the fleet area, as in
                                                            tests/ops/check_dependencies.py)
  src/service/release/release_runner.cc                  -> vanon::service (the service's
                                                            roles share its namespace)
  include/vanon/config.h                                 -> vanon::config
  include/vanon/version.h.in                             -> vanon (the project's version)
  src/alloc/                                             -> none (jemalloc's extern "C" symbol)

A file that defines main() may stay outside (main is global); what else it
defines it puts in vanon::<area> or an anonymous namespace.

A file may also open another area's namespace, but only to forward-declare
classes of it (`namespace vanon::state { class StateStore; }`).

  check_namespaces.py [ROOT]     exit 1 and one line per violation
"""
import re
import sys

from source_areas import area_of, namespace_area, source_files

NO_NAMESPACE = {'alloc', 'version'}
OPEN = re.compile(r'^namespace (vanon(?:::\w+)*) \{')
FORWARD = re.compile(r'^(class|struct) \w+;$')


def check(rel, text):
    area = area_of(rel)
    if area is None or area in NO_NAMESPACE:
        return
    area = namespace_area(area)
    own = 'vanon::' + area
    opened = False
    lines = text.splitlines()
    for n, line in enumerate(lines, 1):
        if re.match(r'\s*using namespace\b', line) and rel.endswith('.h'):
            yield f'{rel}:{n}: `using namespace` in a header'
        m = OPEN.match(line)
        if not m:
            continue
        name = m.group(1)
        if name == own or name.startswith(own + '::'):
            opened = True
            continue
        if re.fullmatch(r'vanon::\w+', name) and name != 'vanon::' + area:
            # another area's namespace: forward declarations only
            body = []
            for rest in lines[n:]:
                if rest.startswith('}'):
                    break
                body.append(rest.strip())
            if all(not b or b.startswith('//') or FORWARD.match(b) for b in body):
                continue
        yield f'{rel}:{n}: opens namespace {name}; files of this area use {own} (or {own}::<helper>)'
    if not opened and not re.search(r'^int main\(', text, re.M):  # a program's main() is global
        yield f'{rel}: never opens namespace {own}'


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else '.'
    bad = []
    for rel, text in source_files(root):
        bad.extend(check(rel, text))
    for b in bad:
        print(b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
