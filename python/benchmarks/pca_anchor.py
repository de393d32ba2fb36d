"""The PCA workload in NumPy and in Dask (threaded), the anchors for `phobos run PCA`:
x = rand(m, n); xc = x - x.mean(axis=0); u, s, vt = svd(xc); p = xc @ vt[:k].T;
(p*p).sum()/(m-1). Random generation is timed, as in every generated workload; Dask
uses its TSQR (da.linalg.svd) over the same row chunks.

    OPENBLAS_CORETYPE=SkylakeX /usr/bin/python3 pca_anchor.py [--m 2000000] [--n 50] [--k 10]
        [--chunk 100000] [--threads 2] [--reps 3]

Prints one JSON line per system: the wall seconds of each run, their median, the result."""

import argparse
import json
import statistics
import time

import dask
import dask.array as da
import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--m", type=int, default=2_000_000)
ap.add_argument("--n", type=int, default=50)
ap.add_argument("--k", type=int, default=10)
ap.add_argument("--chunk", type=int, default=100_000)
ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--reps", type=int, default=3)
args = ap.parse_args()
m, n, k = args.m, args.n, args.k


def numpy_pca():
    x = np.random.default_rng(1).random((m, n))
    xc = x - x.mean(axis=0)
    _, _, vt = np.linalg.svd(xc, full_matrices=False)
    p = xc @ vt[:k].T
    return float((p * p).sum() / (m - 1))


def dask_pca():
    x = da.random.RandomState(1).random_sample((m, n), chunks=(args.chunk, n))
    xc = x - x.mean(axis=0)
    _, _, vt = da.linalg.svd(xc)
    p = xc @ vt[:k].T
    with dask.config.set(scheduler="threads", num_workers=args.threads):
        return float(((p * p).sum() / (m - 1)).compute())


for system, f in (("numpy", numpy_pca), ("dask-threads", dask_pca)):
    walls, result = [], None
    f()  # warm-up, as phobos run does one
    for _ in range(args.reps):
        t0 = time.perf_counter()
        result = f()
        walls.append(time.perf_counter() - t0)
    print(json.dumps({"name": "PCA", "system": system, "params": {"m": m, "n": n, "k": k, "chunk": args.chunk},
                      "wall_s": statistics.median(walls), "wall_s_all": walls, "result": result,
                      "dask": dask.__version__, "numpy": np.__version__}), flush=True)
