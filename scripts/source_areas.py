"""The area of a source file, for the checks that work per area
(scripts/check_namespaces.py, tests/ops/check_dependencies.py): the
directory under src/ or include/vanon/, with the few aliases below."""

# include/vanon/vehicle/ is the fleet's VIN decoding; config.h the config
# area's types; version.h the generated project version (no area code).
AREA_ALIASES = {'vehicle': 'fleet', 'config.h': 'config', 'version.h': 'version', 'version.h.in': 'version'}


def area_of(rel):
    """'src/<area>/...' or 'include/vanon/<area>/...' -> area, else None."""
    p = rel.split('/')
    if p[0] == 'src' and len(p) > 2:
        return p[1]
    if p[:2] == ['include', 'vanon'] and len(p) > 2:
        return AREA_ALIASES.get(p[2], p[2])
    return None
