#!/usr/bin/env python3
"""scripts/fairness_bound.py — how fair could each plan have been?

The per-instant fairness index (docs/metrics.md) scores the allocation of
every plan: Jain's index over leaf queues of allocated / fair GPUs.  This
script asks, for every plan of one replay: if the scheduler could choose
afresh which of the jobs present at that moment run (submitted and not yet
finished, whether the replay had them running or waiting), what is the
fairest allocation it could pick?  Its answer is an allocation that exists,
not an estimate:

  - each queue runs a subset of its present jobs, whole jobs only;
  - the jobs fit the cluster: at most CAPACITY GPUs in all (the ITP jobs are
    1, 2, 4 or 8 GPUs, or multiples of 8 on whole nodes, so whatever fits
    the total also packs onto 8-GPU nodes);
  - at least as many GPUs are busy as in the replay's own plan (no idling
    GPUs to look fair);
  - the fair shares are the replay's own (they depend on demand only).

Such a scheduler would stop and move running jobs at will and at no cost,
so it is a reference, not a policy: it separates what job sizes allow from
what the history of starts allows (a started job holds its GPUs).

Method: for a target mean m, a dynamic programme over queues and GPUs used
minimises sum (x_q - m)^2 (x_q = GPUs / fair share); it carries sum x and
sum x^2 of the allocation it picks, whose Jain index is then exact.  The
best index over a grid of m is reported, or the plan's own when that is
fairer (it is one of the picks); a finer grid can only find a fairer
allocation, so the figure is a lower bound on the best possible.

Input: the CSVs of `fairway sim run --shares S.csv --jobs J.csv`.
Usage: fairness_bound.py --shares S.csv --jobs J.csv --policy P
                         [--capacity GPUS]     (default: 104 = 13 x 8)
Prints the replay's time-averaged index (recomputed from S.csv; it equals
the JSON's fairness_jain) and the reference's, as one JSON object;
"sizes_pack" is false when some job size neither divides an 8-GPU node nor
is a multiple of it, so that a pick that fits the total might not pack.
"""
import argparse
import collections
import csv
import json
import sys

try:
    import numpy as np
except ImportError:  # pragma: no cover - a machine without the Debian package
    sys.exit("fairness_bound.py: needs numpy: run scripts/deps.sh (it installs python3-numpy)")

GRID = np.geomspace(0.15, 3.0, 32)
X_MAX = 4.0  # options above 4x the fair share are left out (see fairest)


def load_plans(path, policy):
    """[(t, until, [(queue, fair, alloc)])] in time order."""
    plans = collections.OrderedDict()
    with open(path) as f:
        for line, r in enumerate(csv.DictReader(f), 2):
            if r["policy"] != policy:
                continue
            try:
                key = (int(r["t"]), int(r["until"]))
                plans.setdefault(key, []).append(
                    (r["queue"], float(r["fair_gpus"]), float(r["alloc_gpus"])))
            except (TypeError, ValueError) as e:
                raise ValueError("%s:%d: %s" % (path, line, e)) from None
    return [(t, u, qs) for (t, u), qs in plans.items()]


def packs(g, node=8):
    """Does a job of g GPUs keep "fits the total" = "packs on nodes"?  True
    for sizes that divide the node or are whole nodes."""
    return (g <= node and node % g == 0) or g % node == 0


def load_events(path, policy):
    """Arrivals (+1) and completions (-1) as (time, delta, queue, gpus),
    sorted; a job that never ended stays present."""
    ev = []
    with open(path) as f:
        for line, r in enumerate(csv.DictReader(f), 2):
            if r["policy"] != policy:
                continue
            try:
                g = int(r["gpus"])
                ev.append((int(r["submit"]), 1, r["queue"], g))
                if r["end"]:
                    ev.append((int(r["end"]), -1, r["queue"], g))
            except (TypeError, ValueError) as e:
                raise ValueError("%s:%d: %s" % (path, line, e)) from None
    ev.sort(key=lambda e: (e[0], e[1]))
    return ev


def subset_sums(sizes, cap):
    """GPU totals a queue can run with its present jobs: sizes is
    {gpus: count}."""
    ok = np.zeros(cap + 1, bool)
    ok[0] = True
    for g, n in sizes.items():
        for _ in range(min(n, cap // g)):
            ok[g:] |= ok[:cap + 1 - g].copy()
    return np.nonzero(ok)[0]


def jain(xs):
    s, ss = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * ss) if ss > 0 else None


def fairest(queues, used, cap):
    """queues: [(fair, options)]; the best Jain index of an allocation that
    uses between `used` and `cap` GPUs, or None.  Allocations that give a
    queue more than X_MAX times its fair share are not searched (leaving
    some out keeps the answer an allocation that exists, and makes it
    faster)."""
    M = len(GRID)
    D = np.full((M, cap + 1), np.inf)
    D[:, 0] = 0
    SX = np.zeros((M, cap + 1))
    SXX = np.zeros((M, cap + 1))
    for fair, opts in queues:
        opts = opts[opts <= max(X_MAX * fair, 1)]
        x = opts / fair
        cost = (x[None, :] - GRID[:, None]) ** 2
        ND = np.full_like(D, np.inf)
        NX = np.zeros_like(SX)
        NXX = np.zeros_like(SXX)
        for j, a in enumerate(opts):
            cand = D[:, :cap + 1 - a] + cost[:, j:j + 1]
            better = cand < ND[:, a:]
            ND[:, a:] = np.where(better, cand, ND[:, a:])
            NX[:, a:] = np.where(better, SX[:, :cap + 1 - a] + x[j], NX[:, a:])
            NXX[:, a:] = np.where(better, SXX[:, :cap + 1 - a] + x[j] * x[j], NXX[:, a:])
        D, SX, SXX = ND, NX, NXX
    ok = np.isfinite(D[:, used:]) & (SXX[:, used:] > 0)
    if not ok.any():
        return None
    J = np.where(ok, SX[:, used:] ** 2 / (len(queues) * np.where(ok, SXX[:, used:], 1)), -1)
    return float(J.max())


def bound(shares, jobs, policy, cap):
    plans = load_plans(shares, policy)
    ev = load_events(jobs, policy)
    present = collections.defaultdict(collections.Counter)
    k = 0
    tot = acc_run = acc_ref = 0.0
    for t, until, qs in plans:
        while k < len(ev) and ev[k][0] <= t:
            _, d, q, g = ev[k]
            present[q][g] += d
            k += 1
        dt = until - t
        live = [(f, a, q) for q, f, a in qs if f > 1e-9]
        run = jain([a / f for f, a, _ in live]) if live else None
        if dt <= 0 or run is None:
            continue
        used = int(round(sum(a for _, a, _ in live)))
        opts = [(f, subset_sums({g: n for g, n in present[q].items() if n > 0}, cap))
                for f, _, q in live]
        ref = fairest(opts, min(used, cap), cap)
        tot += dt
        acc_run += run * dt
        acc_ref += max(ref if ref is not None else run, run) * dt  # the plan's own is a pick too
    return {"policy": policy, "plans": len(plans),
            "sizes_pack": all(packs(e[3]) for e in ev),
            "fairness_jain": acc_run / tot if tot else None,
            "fairest_choice_jain": acc_ref / tot if tot else None}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="Example: fairway sim run --trace T.csv --policies fairway "
                                 "--shares S.csv --jobs J.csv; then fairness_bound.py --shares S.csv "
                                 "--jobs J.csv --policy fairway --capacity 104")
    ap.add_argument("--shares", required=True, help="the CSV of `fairway sim run --shares`")
    ap.add_argument("--jobs", required=True, help="the CSV of `fairway sim run --jobs`, same run")
    ap.add_argument("--policy", required=True, help="the policy (or variant) of that run to read")
    ap.add_argument("--capacity", type=int, default=104, help="the cluster's GPUs (default 104 = 13 x 8)")
    a = ap.parse_args(argv)
    if a.capacity < 1:
        ap.error("--capacity must be at least 1")
    try:
        b = bound(a.shares, a.jobs, a.policy, a.capacity)
    except OSError as e:
        sys.exit("fairness_bound.py: cannot read %s: %s" % (e.filename, e.strerror))
    except KeyError as e:
        sys.exit("fairness_bound.py: a column is missing: %s (give the CSVs of `fairway sim run "
                 "--shares` and `--jobs`)" % e)
    except ValueError as e:
        sys.exit("fairness_bound.py: %s (not a number)" % e)
    if not b["plans"]:
        sys.exit("fairness_bound.py: %s has no rows of policy '%s'" % (a.shares, a.policy))
    print(json.dumps(b))


if __name__ == "__main__":
    main(sys.argv[1:])
