#!/usr/bin/python3
"""What an engine that knew each vehicle's repertoire could reach on the
utility benchmark's fleet (docs/utility.md, section 2b).

The fleet of drifting_fleet.cc (repertoire shape, its defaults) is replayed
in Python. At release t0 an oracle, which sees the generator's hidden state,
gives every vehicle the signature S_v = its current repertoire, filled up to
s values with the most popular values it lacks. Vehicles with equal S_v share
a bucket; in every later release a bucket publishes max_x c_x groups of |S_v|
slots (c_x = its active vehicles holding x), as the engine's bucket grouping
does, and an active vehicle whose value (its favourite) left S_v is
suppressed. Printed at the last release: suppression, counterfeit ratio.

The suppression is a floor for every engine with signatures of s values
(no engine knows more than the hidden state, and a value is drawn from the
repertoire); the counterfeit ratio is what this one strategy costs, not a
bound.

    /usr/bin/python3 loadtest/utility/oracle_bound.py [RELEASES [VEHICLES]]
"""
import random
import sys
from collections import defaultdict

VALUES, REPERTOIRE, DRIFT, RENEW, ACTIVE = 30, 4, 0.05, 0.2, 0.9
WEIGHTS = [1 / (r + 1) for r in range(VALUES)]


def popular(rng):
    return rng.choices(range(VALUES), weights=WEIGHTS)[0]


def fleet(n, rng):
    out = []
    for _ in range(n):
        mine = []
        while len(mine) < REPERTOIRE:
            x = popular(rng)
            if x not in mine:
                mine.append(x)
        out.append([mine, mine[0]])
    return out


def step(vehicles, rng):
    for v in vehicles:
        mine, fav = v
        if rng.random() < DRIFT:
            if rng.random() < RENEW:
                fresh = popular(rng)
                if fresh not in mine:
                    slot = rng.randrange(len(mine))
                    if mine[slot] == fav:
                        slot = (slot + 1) % len(mine)
                    mine[slot] = fresh
            v[1] = rng.choice([x for x in mine if x != fav])


def signature(mine, s):
    sig = set(mine[:s])
    for x in range(VALUES):
        if len(sig) >= s:
            break
        sig.add(x)
    return frozenset(sig)


def run(s, releases, n, t0=3, seed=1):
    rng = random.Random(seed)
    vehicles = fleet(n, rng)
    sigs = None
    for t in range(1, releases + 1):
        step(vehicles, rng)
        if t == t0:
            sigs = [signature(mine, s) for mine, _ in vehicles]
    counts = defaultdict(lambda: defaultdict(int))
    tuples = suppressed = 0
    for v, (mine, fav) in enumerate(vehicles):
        if rng.random() >= ACTIVE:
            continue
        tuples += 1
        if fav in sigs[v]:
            counts[sigs[v]][fav] += 1
        else:
            suppressed += 1
    slots = sum(len(sig) * max(c.values()) for sig, c in counts.items())
    published = tuples - suppressed
    return suppressed / tuples, 1 - published / slots, len(set(sigs))


def main(argv):
    releases = int(argv[1]) if len(argv) > 1 else 200
    n = int(argv[2]) if len(argv) > 2 else 2000
    print(f"oracle signatures at release 3, fleet of {n}, release {releases}")
    print("s   suppression  counterfeit ratio  signatures")
    for s in (4, 5, 6, 8, 11):
        sup = [run(s, releases, n, seed=k) for k in (1, 2, 3)]
        print(f"{s:<3} {sum(x[0] for x in sup) / 3:11.3f}  {sum(x[1] for x in sup) / 3:17.3f}  "
              f"{sum(x[2] for x in sup) / 3:10.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
