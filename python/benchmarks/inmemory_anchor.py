"""The anchors of Phobos's in-memory workloads (workloads/inmemory.go, run by
`phobos run gram`, ...): the same computations on data of the same
distributions held in memory, in NumPy alone and in Dask threaded with the
same chunks, timed the way shared/anchors/bench_anchor.py times (a warm-up,
then --reps runs, the median):

    OPENBLAS_CORETYPE=SkylakeX /usr/bin/python3 inmemory_anchor.py [--reps 5]
        [--threads 2] [--only gram,matmul,expsin,hypot,arctan2,log,log2,log1p,cos,standardize,views]

The data is made with NumPy before any timing. Prints one JSON line per
workload and system: name, system, params, wall_s (median), wall_s_all,
result."""

import argparse
import json
import statistics
import time

import dask
import dask.array as da
import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--reps", type=int, default=5)
ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--only", default="gram,matmul,expsin,hypot,arctan2,log,log2,log1p,cos,standardize,views")
args = ap.parse_args()
rng = np.random.default_rng(1)


def gram_data():
    m, n, chunk = 2_000_000, 50, 100_000
    x = rng.random((m, n))
    return {"m": m, "n": n, "chunk": chunk}, [x], [(chunk, n)]


def gram(xp, x):
    xc = x - x.mean(axis=0)
    return (xc.T @ xc).sum()


def matmul_data():
    n, chunk = 4000, 2000
    return {"n": n, "chunk": chunk}, [rng.random((n, n)), rng.random((n, n))], [(chunk, chunk)] * 2


def xy_data():
    n, chunk = 100_000_000, 10_000_000
    return {"n": n, "chunk": chunk}, [rng.uniform(-1, 1, n), rng.uniform(-3, 3, n)], [chunk, chunk]


def standardize_data():
    m, n, chunk = 1_000_000, 100, 100_000
    return {"m": m, "n": n, "chunk": chunk}, [rng.random((m, n))], [(chunk, n)]


def standardize(xp, x):
    z = (x - x.mean(axis=0)) / x.std(axis=0)
    return (z * z).sum()


def views_data():
    n, chunk = 8000, 1000
    return {"n": n, "chunk": chunk}, [rng.random((n, n))], [(chunk, chunk)]


WORKLOADS = {
    "gram": (gram_data, gram),
    "matmul": (matmul_data, lambda xp, a, b: (a @ b).sum()),
    "expsin": (xy_data, lambda xp, x, y: (xp.exp(-x * x) * xp.sin(x)).sum()),
    "hypot": (xy_data, lambda xp, x, y: xp.hypot(x, y).sum()),
    "arctan2": (xy_data, lambda xp, x, y: xp.arctan2(y, x).sum()),
    "log": (xy_data, lambda xp, x, y: xp.log(x + 2).sum()),
    "log2": (xy_data, lambda xp, x, y: xp.log2(y + 4).sum()),
    "log1p": (xy_data, lambda xp, x, y: xp.log1p(x + 1).sum()),
    "cos": (xy_data, lambda xp, x, y: xp.cos(y).sum()),
    "standardize": (standardize_data, standardize),
    "views": (views_data, lambda xp, x: (x + x.T)[::2, 1::3].sum()),
}


def timed(run):
    run()  # warm-up
    walls, result = [], None
    for _ in range(args.reps):
        t0 = time.perf_counter()
        result = float(run())
        walls.append(time.perf_counter() - t0)
    return statistics.median(walls), walls, result


with dask.config.set(scheduler="threads", num_workers=args.threads):
    for name in args.only.split(","):
        make, f = WORKLOADS[name]
        params, arrays, chunks = make()
        darrays = [da.from_array(a, chunks=c) for a, c in zip(arrays, chunks)]
        for system, run in [("numpy", lambda: f(np, *arrays)), ("dask", lambda: f(da, *darrays).compute())]:
            med, walls, result = timed(run)
            print(json.dumps({"name": name, "system": system, "params": params, "wall_s": round(med, 4),
                              "wall_s_all": [round(w, 4) for w in walls], "result": result}), flush=True)
        del arrays, darrays
