"""The anchors of `phobos run sort` (x = rand(n); s = sort(x); s[n/2], checked: s ascending and
sum(s) = sum(x)), the same work in NumPy (generation timed, as in every generated workload), and of
top-k: Dask's da.topk(x, k) beside NumPy's np.partition (Phobos: tensor.TopK). Dask has no global
sort (map_blocks sorts only within chunks).

    OPENBLAS_CORETYPE=SkylakeX /usr/bin/python3 sort_anchor.py [--n 200000000] [--chunk 10000000]
        [--k 100] [--threads 2] [--reps 3]

Prints one JSON line per system and task: the wall seconds of each run and their median."""

import argparse
import json
import statistics
import time

import dask
import dask.array as da
import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--n", type=int, default=200_000_000)
ap.add_argument("--chunk", type=int, default=10_000_000)
ap.add_argument("--k", type=int, default=100)
ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--reps", type=int, default=3)
ap.add_argument("--skip-sort", action="store_true")
args = ap.parse_args()
n = args.n


def numpy_sort():
    x = np.random.default_rng(1).random(n)
    s = np.sort(x)
    assert (s[1:] >= s[:-1]).all() and abs(s.sum() - x.sum()) <= 1e-9 * x.sum()
    return float(s[n // 2])


def dask_topk():
    x = da.random.RandomState(1).random_sample(n, chunks=args.chunk)
    return float(da.topk(x, args.k).sum().compute())


def numpy_topk():
    x = np.random.default_rng(1).random(n)
    return float(np.sort(np.partition(x, n - args.k)[n - args.k:])[::-1].sum())


runs = [("topk", "dask-threads", dask_topk), ("topk", "numpy", numpy_topk)]
if not args.skip_sort:
    runs.insert(0, ("sort", "numpy", numpy_sort))
with dask.config.set(scheduler="threads", num_workers=args.threads):
    for task, system, f in runs:
        walls, result = [], None
        for _ in range(args.reps):
            t0 = time.perf_counter()
            result = f()
            walls.append(time.perf_counter() - t0)
        print(json.dumps({"name": task, "system": system, "n": n, "chunk": args.chunk, "k": args.k,
                          "wall_s": statistics.median(walls), "wall_s_all": walls, "result": result}), flush=True)
