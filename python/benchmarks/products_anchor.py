"""The anchor of the product benchmarks (products_bench_test.go), on data held
in memory, in NumPy alone and in Dask threaded:

    OPENBLAS_CORETYPE=SkylakeX /usr/bin/python3 products_anchor.py [--reps 5] [--threads 2]

gram: xc.T @ xc summed, xc = x - x.mean(axis=0), x a 2e6 x 50 float64 matrix
(Dask: row blocks of 1e5, as the Go benchmark); matmul: (a @ b).sum() of
4000 x 4000 float64 matrices (Dask: blocks of 2000). Inputs are uniform in
[0, 1), made before any timing. Prints one JSON line per workload and system:
the median wall seconds of --reps runs, every run, the result."""

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
args = ap.parse_args()

rng = np.random.default_rng(1)
x = rng.random((2_000_000, 50))
a, b = rng.random((4000, 4000)), rng.random((4000, 4000))
dx = da.from_array(x, chunks=(100_000, 50))
da_, db = da.from_array(a, chunks=2000), da.from_array(b, chunks=2000)


def gram(m, x):
    xc = x - x.mean(axis=0)
    return (xc.T @ xc).sum()


def timed(run):
    walls, result = [], None
    for _ in range(args.reps):
        t0 = time.perf_counter()
        result = float(run())
        walls.append(time.perf_counter() - t0)
    return statistics.median(walls), walls, result


with dask.config.set(scheduler="threads", num_workers=args.threads):
    for name, np_run, dask_run in [
        ("gram", lambda: gram(np, x), lambda: gram(da, dx).compute()),
        ("matmul", lambda: (a @ b).sum(), lambda: (da_ @ db).sum().compute()),
    ]:
        for system, run in [("numpy", np_run), ("dask", dask_run)]:
            med, walls, result = timed(run)
            print(json.dumps({"name": name, "system": system, "wall_s": round(med, 4),
                              "wall_s_all": [round(w, 4) for w in walls], "result": result}), flush=True)
