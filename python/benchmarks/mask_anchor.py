"""The anchors of boolean masking and integer indexing: x[x > 0].sum() over 1e8 float64 in
memory (x uniform in [-1, 1), made before timing; Phobos: `go test -run '^$' -bench MaskSum
-benchtime 5x .`), x[idx].sum() with 1e7 random indices (chunks of 1e6; Phobos: -bench TakeRandom),
the generated workload `phobos run mask` (x = rand(n); x[x > 0.5].sum(), generation timed),
in NumPy and in Dask (threaded, chunks of 1e7).

    OPENBLAS_CORETYPE=SkylakeX /usr/bin/python3 mask_anchor.py [--n 100000000] [--chunk 10000000]
        [--threads 2] [--reps 5]

Prints one JSON line per system and variant: the wall seconds of each run and their median."""

import argparse
import json
import statistics
import time

import dask
import dask.array as da
import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--n", type=int, default=100_000_000)
ap.add_argument("--chunk", type=int, default=10_000_000)
ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--reps", type=int, default=5)
args = ap.parse_args()

x = np.random.default_rng(1).uniform(-1, 1, args.n)
dx = da.from_array(x, chunks=args.chunk)


def gen_numpy():
    y = np.random.default_rng(2).random(args.n)
    return float(y[y > 0.5].sum())


def gen_dask():
    y = da.random.RandomState(2).random_sample(args.n, chunks=args.chunk)
    return float(y[y > 0.5].sum().compute())


idx = np.random.default_rng(3).integers(0, args.n, 10_000_000)
didx = da.from_array(idx, chunks=1_000_000)

runs = [
    ("take 1e7", "numpy", lambda: float(x[idx].sum())),
    ("take 1e7", "dask-threads", lambda: float(dx[didx].sum().compute())),
    ("in-memory", "numpy", lambda: float(x[x > 0].sum())),
    ("in-memory", "dask-threads", lambda: float(dx[dx > 0].sum().compute())),
    ("generated", "numpy", gen_numpy),
    ("generated", "dask-threads", gen_dask),
]
with dask.config.set(scheduler="threads", num_workers=args.threads):
    for variant, system, f in runs:
        f()
        walls, result = [], None
        for _ in range(args.reps):
            t0 = time.perf_counter()
            result = f()
            walls.append(time.perf_counter() - t0)
        print(json.dumps({"name": "mask", "variant": variant, "system": system, "n": args.n, "chunk": args.chunk,
                          "wall_s": statistics.median(walls), "wall_s_all": walls, "result": result}), flush=True)
