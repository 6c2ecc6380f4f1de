"""The source files of src/ and include/ and the area of each, for the
checks that work per area (scripts/check_namespaces.py,
tests/ops/check_dependencies.py). A file's area is the directory under src/
or include/vanon/, with the few aliases below. The service is split by role:
src/service/<role>/ is the area service/<role> (src/service/service.cc the
area service), and each public header of include/vanon/service/ belongs to
the role that implements it."""

import os
import re

# include/vanon/vehicle/ is the fleet's VIN decoding; config.h the config
# area's types; version.h the generated project version (no area code).
AREA_ALIASES = {'vehicle': 'fleet', 'config.h': 'config', 'version.h': 'version', 'version.h.in': 'version'}


# include/vanon/service/<header> -> the service role that implements it.
SERVICE_PUBLIC = {'service.h': 'service', 'json_log.h': 'service/support', 'qi_resolver.h': 'service/ingest'}
# Areas split into one area per subdirectory.
SPLIT_AREAS = {'service'}


def area_of(rel):
    """'src/<area>/...' or 'include/vanon/<area>/...' -> area, else None."""
    p = rel.split('/')
    if p[0] == 'src' and len(p) > 2:
        return p[1] + '/' + p[2] if p[1] in SPLIT_AREAS and len(p) > 3 else p[1]
    if p[:2] == ['include', 'vanon'] and len(p) > 2:
        if p[2] == 'service' and len(p) > 3:
            return SERVICE_PUBLIC.get(p[3], 'service')
        return AREA_ALIASES.get(p[2], p[2])
    return None


def namespace_area(area):
    """The area whose namespace a file opens: service/<role> -> service."""
    return area.split('/')[0]


def source_files(root):
    """(rel, text) of every .h, .cc and .h.in file under ROOT/src and
    ROOT/include that belongs to an area, directory by directory, each
    directory's files in name order."""
    for top in ('src', 'include'):
        for d, _, names in sorted(os.walk(os.path.join(root, top))):
            for name in sorted(names):
                if not re.search(r'\.(h|cc|h\.in)$', name):
                    continue
                path = os.path.join(d, name)
                rel = os.path.relpath(path, root)
                if area_of(rel) is not None:
                    yield rel, open(path, encoding='utf-8', errors='replace').read()
