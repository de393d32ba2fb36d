"""Interactive round trips (issue 31): a trivial graph, built and computed
from Python on a local `phobos cluster`, beside Dask threaded's .compute()
of the same, in turns in one run.

    PHOBOS_BIN=/tmp/phobos /usr/bin/python3 roundtrip.py [--reps 300] [--breakdown]

The graph is (arange(100) * 2).sum(): Phobos with its default chunking,
Dask with chunks of 50. Each rep times both, one after the other, after
warming up; prints one JSON line per system with the median and best
milliseconds. --breakdown adds the median time of each kind of request
the Phobos client made (what one round trip is made of)."""

import argparse
import collections
import json
import os
import re
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import dask.array as da  # noqa: E402

import phobos  # noqa: E402
import phobos.session as ps  # noqa: E402
import phobos.tensor as mt  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--reps", type=int, default=300)
ap.add_argument("--warmup", type=int, default=30)
ap.add_argument("--breakdown", action="store_true")
args = ap.parse_args()

sess = phobos.new_session()
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


assert int(phobos_rt()) == int(dask_rt())
for _ in range(args.warmup):
    phobos_rt()
    dask_rt()
calls.clear()
times = {"phobos": [], "dask": []}
for _ in range(args.reps):
    for name, f in (("phobos", phobos_rt), ("dask", dask_rt)):
        t0 = time.perf_counter()
        f()
        times[name].append(time.perf_counter() - t0)
for name, ts in times.items():
    print(json.dumps({"system": name, "graph": "(arange(100) * 2).sum()", "reps": len(ts),
                      "median_ms": round(statistics.median(ts) * 1e3, 3), "best_ms": round(min(ts) * 1e3, 3)}))
for what, ts in sorted(calls.items()):
    print(json.dumps({"request": what, "per_round_trip": round(len(ts) / args.reps, 2),
                      "median_ms": round(statistics.median(ts) * 1e3, 3)}))
sess.close()
