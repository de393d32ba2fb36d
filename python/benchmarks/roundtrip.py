"""Interactive round trips (issue 31), from Python on a local `phobos
cluster`, beside Dask threaded's .compute() of the same, in turns in one
run.

    PHOBOS_BIN=/tmp/phobos /usr/bin/python3 roundtrip.py [--reps 300] [--breakdown] [--cluster-arg=...]

"trivial" is (arange(100) * 2).sum(): Phobos with its default chunking,
Dask with chunks of 50. "client mean" is float(t.mean()) where t is made
from a 400 KB NumPy array x once (mt.tensor(x); Dask: da.from_array(x) on
every call, as code that wraps its data does). "two reads" is the sum of
arange(100) * 2 and the mean of arange(100) read together: Phobos with
float() each (two graphs) and with mt.compute (one), Dask with
dask.compute. Each rep times every case,
one after the other, after warming up; prints one JSON line per case and
system with the median and best milliseconds. --breakdown adds the median
time of each kind of request the Phobos client made."""

import argparse
import collections
import json
import os
import re
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import dask  # noqa: E402
import dask.array as da  # noqa: E402
import numpy as np  # noqa: E402

import phobos  # noqa: E402
import phobos.session as ps  # noqa: E402
import phobos.tensor as mt  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--reps", type=int, default=300)
ap.add_argument("--warmup", type=int, default=30)
ap.add_argument("--breakdown", action="store_true")
ap.add_argument("--cluster-arg", action="append", default=[],
                help="an argument for the local `phobos cluster` (e.g. --cluster-arg=--one-process=false)")
args = ap.parse_args()

sess = phobos.new_session(cluster_args=args.cluster_arg)
calls = collections.defaultdict(list)
if args.breakdown:
    real = ps.Session._json

    def timed(self, method, path, *a, **k):
        t0 = time.perf_counter()
        try:
            return real(self, method, path, *a, **k)
        finally:
            what = re.sub(r"/sessions/[^/]+", "/sessions/S", re.sub(r"/graphs/g\d+", "/graphs/G", path.split("?")[0]))
            calls[f"{method} {what}"].append(time.perf_counter() - t0)

    ps.Session._json = timed


def phobos_rt():
    return (mt.arange(100) * 2).sum().execute()._value


def dask_rt():
    return (da.arange(100, chunks=50) * 2).sum().compute(scheduler="threads")


x = np.random.default_rng(31).standard_normal(50_000)
tx = mt.tensor(x)


def phobos_mean():
    return float(tx.mean())


def dask_mean():
    return float(da.from_array(x).mean().compute(scheduler="threads"))


def phobos_two_floats():
    a = mt.arange(100)
    return float((a * 2).sum()), float(a.mean())


def phobos_two_compute():
    a = mt.arange(100)
    return tuple(float(v) for v in mt.compute((a * 2).sum(), a.mean()))


def dask_two():
    a = da.arange(100, chunks=50)
    return tuple(float(v) for v in dask.compute((a * 2).sum(), a.mean(), scheduler="threads"))


assert int(phobos_rt()) == int(dask_rt())
assert phobos_two_floats() == phobos_two_compute() == dask_two()
assert abs(phobos_mean() - dask_mean()) <= 1e-12 * abs(x).sum()
cases = [("trivial", "phobos", phobos_rt), ("trivial", "dask", dask_rt),
         ("client mean", "phobos", phobos_mean), ("client mean", "dask", dask_mean),
         ("two reads", "phobos float() each", phobos_two_floats), ("two reads", "phobos mt.compute", phobos_two_compute),
         ("two reads", "dask", dask_two)]
for _ in range(args.warmup):
    for _, _, f in cases:
        f()
calls.clear()
times = collections.defaultdict(list)
for _ in range(args.reps):
    for case, name, f in cases:
        t0 = time.perf_counter()
        f()
        times[(case, name)].append(time.perf_counter() - t0)
for (case, name), ts in times.items():
    print(json.dumps({"case": case, "system": name, "reps": len(ts),
                      "median_ms": round(statistics.median(ts) * 1e3, 3), "best_ms": round(min(ts) * 1e3, 3)}))
for what, ts in sorted(calls.items()):
    print(json.dumps({"request": what, "per_rep": round(len(ts) / args.reps, 2),
                      "median_ms": round(statistics.median(ts) * 1e3, 3)}))
sess.close()
