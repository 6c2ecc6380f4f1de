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

A second oracle shares signatures: it picks K signatures of s values
greedily (each the repertoire of some vehicle filled with popular values,
each maximizing the repertoire values it adds over the best signature every
vehicle already has) and gives every vehicle the one holding most of its
repertoire. Fewer, larger buckets cost suppression and save counterfeits.

    /usr/bin/python3 loadtest/utility/oracle_bound.py [RELEASES [VEHICLES]]

With --state FILE (written by vanon-utility-run --oracle-state, so the
oracle sees the very stream the service published) it reads the hidden
state at release 3 and at the reported releases instead of replaying the
fleet, and prints, per reported release, one JSON object: the floor
(suppression of personal signatures of m values) and the trade-off points
(suppression, counterfeit ratio) of both oracles for signatures of m or more
values. Under --shape=global the future favourite is a popularity draw, so
the personal oracle's signature is the current favourite plus the most
popular values; under repertoire, the repertoire plus the most popular.

    /usr/bin/python3 loadtest/utility/oracle_bound.py --state FILE --m 5 --shape repertoire [--values 30]
"""
import json
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


def bits(values):
    out = 0
    for x in values:
        out |= 1 << x
    return out


def shared_family(reps, s, k):
    """K signatures (bit masks) chosen greedily to cover the repertoires."""
    candidates = set()
    for r in set(reps):
        candidates.add(bits(signature([x for x in range(VALUES) if r >> x & 1], s)))
    have = [0] * len(reps)
    family = []
    for _ in range(k):
        def gain(sig):
            return sum(max(0, (sig & r).bit_count() - h) for r, h in zip(reps, have))
        pick = max(sorted(candidates), key=gain)
        family.append(pick)
        have = [max(h, (pick & r).bit_count()) for r, h in zip(reps, have)]
    return family


def run_shared(s, k, releases, n, t0=3, seed=1):
    rng = random.Random(seed)
    vehicles = fleet(n, rng)
    sigs = None
    for t in range(1, releases + 1):
        step(vehicles, rng)
        if t == t0:
            reps = [bits(mine) for mine, _ in vehicles]
            family = shared_family(reps, s, k)
            sigs = [max(family, key=lambda f: (f & r).bit_count()) for r in reps]
    counts = defaultdict(lambda: defaultdict(int))
    tuples = suppressed = 0
    for v, (mine, fav) in enumerate(vehicles):
        if rng.random() >= ACTIVE:
            continue
        tuples += 1
        if sigs[v] >> fav & 1:
            counts[sigs[v]][fav] += 1
        else:
            suppressed += 1
    slots = sum(bin(sig).count("1") * max(c.values()) for sig, c in counts.items())
    return suppressed / tuples, 1 - (tuples - suppressed) / slots


def ideal_bucket(n, s, trials=4000, seed=1):
    """Counterfeit ratio of a bucket of n vehicles sharing a signature of s
    values, each active with probability ACTIVE and holding a value drawn
    uniformly from the signature: perfect balance, no suppression."""
    rng = random.Random(seed)
    real = slots = 0
    for _ in range(trials):
        c = [0] * s
        for _ in range(n):
            if rng.random() < ACTIVE:
                c[rng.randrange(s)] += 1
        real += sum(c)
        slots += s * max(c)
    return 1 - real / slots


def read_state(path):
    """release -> list of (active, favourite, repertoire) by vehicle."""
    out = defaultdict(list)
    with open(path) as f:
        for line in f:
            r, v, active, fav, rep = line.rstrip("\n").split(",")
            out[int(r)].append((active == "1", int(fav), [int(x) for x in rep.split(";") if x]))
    return out


def fill(first, s, values):
    """`first` (deduplicated, in order) cut or filled to s values, the most popular first."""
    sig = []
    for x in list(first) + list(range(values)):
        if x not in sig:
            sig.append(x)
        if len(sig) == s:
            break
    return frozenset(sig)


def outcome(sigs, vehicles):
    """(suppression, counterfeit ratio) of fixed signatures in one release."""
    counts = defaultdict(lambda: defaultdict(int))
    tuples = suppressed = 0
    for sig, (active, fav, _) in zip(sigs, vehicles):
        if not active:
            continue
        tuples += 1
        if fav in sig:
            counts[sig][fav] += 1
        else:
            suppressed += 1
    slots = sum(len(sig) * max(c.values()) for sig, c in counts.items())
    published = tuples - suppressed
    return suppressed / tuples, (1 - published / slots) if slots else 0.0


def shared_from_state(mines, s, k, values):
    """K signatures chosen greedily to cover `mines` (each vehicle's values
    an oracle would keep), and each vehicle's pick among them."""
    weight = defaultdict(int)
    for mine in mines:
        weight[bits(mine)] += 1
    reps = list(weight)
    candidates = sorted({bits(fill([x for x in range(values) if r >> x & 1], s, values)) for r in reps})
    have = {r: 0 for r in reps}
    family = []
    for _ in range(min(k, len(candidates))):
        def gain(sig):
            return sum(weight[r] * max(0, (sig & r).bit_count() - have[r]) for r in reps)
        pick = max(candidates, key=gain)
        family.append(pick)
        have = {r: max(h, (pick & r).bit_count()) for r, h in have.items()}
    return [frozenset(x for x in range(values) if f >> x & 1) for f in family]


def state_main(path, m, shape, values):
    state = read_state(path)
    t0 = min(state)
    at_t0 = state[t0]
    if shape == "global":
        mines = [[fav] for _, fav, _ in at_t0]
    else:
        mines = [[fav] + [x for x in rep if x != fav] for _, fav, rep in at_t0]
    personal = {s: [fill(mine, s, values) for mine in mines] for s in (m, m + 1, m + 2, m + 3, m + 5, m + 8)}
    shared = {}
    for s in (m, m + 1, m + 3):
        for k in (5, 20, 40):
            family = shared_from_state(mines, s, k, values)
            shared[(s, k)] = [max(family, key=lambda f: (len(f & set(mine)), mine[0] in f)) for mine in mines]
    for r in sorted(state):
        if r == t0 and len(state) > 1:
            continue
        points = []
        for s, sigs in personal.items():
            sup, cf = outcome(sigs, state[r])
            points.append({"oracle": "personal", "s": s, "suppression": sup, "counterfeit_ratio": cf})
        for (s, k), sigs in shared.items():
            sup, cf = outcome(sigs, state[r])
            points.append({"oracle": "shared", "s": s, "K": k, "suppression": sup, "counterfeit_ratio": cf})
        floor = next(p["suppression"] for p in points if p["oracle"] == "personal" and p["s"] == m)
        print(json.dumps({"release": r, "m": m, "shape": shape, "floor": floor, "points": points}))
    return 0


def main(argv):
    if len(argv) > 1 and argv[1] == "--state":
        opts = dict(zip(argv[3::2], argv[4::2]))
        return state_main(argv[2], int(opts.get("--m", 5)), opts.get("--shape", "repertoire"),
                          int(opts.get("--values", VALUES)))
    releases = int(argv[1]) if len(argv) > 1 else 200
    n = int(argv[2]) if len(argv) > 2 else 2000
    print(f"oracle signatures at release 3, fleet of {n}, release {releases}")
    print("s   suppression  counterfeit ratio  signatures")
    for s in (4, 5, 6, 8, 11):
        sup = [run(s, releases, n, seed=k) for k in (1, 2, 3)]
        print(f"{s:<3} {sum(x[0] for x in sup) / 3:11.3f}  {sum(x[1] for x in sup) / 3:17.3f}  "
              f"{sum(x[2] for x in sup) / 3:10.0f}")
    print("ideal bucket (uniform values, no suppression): counterfeit ratio")
    print("n     s=5    s=6    s=8")
    for n in (5, 10, 20, 50, 100, 200):
        print(f"{n:<5} " + "  ".join(f"{ideal_bucket(n, s):.3f}" for s in (5, 6, 8)))
    print("shared signatures: s   K   suppression  counterfeit ratio")
    for s, k in ((5, 5), (5, 10), (5, 20), (6, 20), (8, 20), (8, 40), (11, 40)):
        got = run_shared(s, k, releases, n)
        print(f"                   {s:<3} {k:<3} {got[0]:11.3f}  {got[1]:17.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
