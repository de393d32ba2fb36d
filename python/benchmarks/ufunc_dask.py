"""The anchor of the ufunc benchmarks (ufunc_bench_test.go): f(x, y).sum() over
1e8 float64 elements held in memory, in Dask threaded and in NumPy alone.

    OPENBLAS_CORETYPE=SkylakeX /usr/bin/python3 ufunc_dask.py [--n 100000000]
        [--chunk 10000000] [--threads 2] [--reps 5] [--ops hypot,arctan2,add,expsin]

x is uniform in [-1, 1) and y in [-3, 3), as in the Go benchmark; both are
made with NumPy before any timing, and Dask wraps them with from_array in
chunks of --chunk (the Go benchmark's 1e7). "add" is x + y, which reads the
same bytes and does almost no arithmetic: the memory-bandwidth floor.
"expsin" is exp(-x*x) * sin(x), of x only. Prints one JSON line per op and
system: the median wall seconds of --reps runs, every run, the result."""

import argparse
import json
import statistics
import time

import dask
import dask.array as da
import numpy as np

OPS = {
    "hypot": lambda m, x, y: m.hypot(x, y),
    "arctan2": lambda m, x, y: m.arctan2(y, x),
    "add": lambda m, x, y: x + y,
    "expsin": lambda m, x, y: m.exp(-x * x) * m.sin(x),
}

ap = argparse.ArgumentParser()
ap.add_argument("--n", type=int, default=100_000_000)
ap.add_argument("--chunk", type=int, default=10_000_000)
ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--reps", type=int, default=5)
ap.add_argument("--ops", default="hypot,arctan2,add,expsin")
args = ap.parse_args()

rng = np.random.default_rng(1)
x = rng.uniform(-1, 1, args.n)
y = rng.uniform(-3, 3, args.n)
dx = da.from_array(x, chunks=args.chunk)
dy = da.from_array(y, chunks=args.chunk)


def timed(run):
    walls, result = [], None
    for _ in range(args.reps):
        t0 = time.perf_counter()
        result = float(run())
        walls.append(time.perf_counter() - t0)
    return walls, result


for name in args.ops.split(","):
    f = OPS[name]
    with dask.config.set(scheduler="threads", num_workers=args.threads):
        walls, result = timed(lambda: f(da, dx, dy).sum().compute(scheduler="threads"))
    print(json.dumps({"name": name, "system": "dask-threads", "n": args.n, "chunk": args.chunk,
                      "threads": args.threads, "wall_s": statistics.median(walls), "wall_s_all": walls,
                      "result": result, "dask": dask.__version__, "numpy": np.__version__}), flush=True)
    walls, result = timed(lambda: f(np, x, y).sum())
    print(json.dumps({"name": name, "system": "numpy", "n": args.n, "wall_s": statistics.median(walls),
                      "wall_s_all": walls, "result": result, "numpy": np.__version__}), flush=True)
