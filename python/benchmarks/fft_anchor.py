"""The anchors of `phobos run fft` and `phobos run fft2` (workloads/fft.go): the same transforms
of data of the same distribution held in memory, in NumPy (pocketfft, one core) and in
dask.array.fft (threaded, the same chunks; Dask transforms only along an axis held in one chunk,
so fft2 is its fft along the rows, a rechunk to columns of as many elements, then its fft along
the columns, as Phobos tiles it), and, with --phobos BIN, `phobos run` itself in the same run,
so the three share the machine's load:

    OPENBLAS_CORETYPE=SkylakeX /usr/bin/python3 fft_anchor.py [--reps 5] [--threads 2]
        [--only fft,fft2] [--phobos /path/to/phobos]

Each timed run computes the whole transform into memory (NumPy and Dask: a NumPy array; Phobos:
the fetched array). The data is made before any timing. Prints one JSON line per workload and
system: name, system, params, wall_s (median), wall_s_all, result (sum|X|^2 / N, which
Parseval's theorem makes sum x^2: about N/3)."""

import argparse
import json
import os
import statistics
import subprocess
import time

import dask
import dask.array as da
import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--reps", type=int, default=5)
ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--only", default="fft,fft2")
ap.add_argument("--phobos", default="", help="a phobos binary: also time `phobos run` on the same workloads")
args = ap.parse_args()
rng = np.random.default_rng(1)

PARAMS = {"fft": {"n": 1 << 24, "chunk": 1 << 21}, "fft2": {"n": 4096, "chunk": 512}}


def parseval(X):
    return float(np.vdot(X, X).real / X.size)


def fft_numpy(x):
    return np.fft.fft(x)


def fft_dask(x, p):
    return da.fft.fft(da.from_array(x, chunks=p["chunk"]).rechunk(x.shape[0])).compute()


def fft2_numpy(x):
    return np.fft.fft2(x)


def fft2_dask(x, p):
    n, c = p["n"], p["chunk"]
    rows = da.fft.fft(da.from_array(x, chunks=(c, n)), axis=1)
    return da.fft.fft(rows.rechunk((n, c)), axis=0).compute()


def timed(run):
    run()  # warm-up
    walls, result = [], None
    for _ in range(args.reps):
        t0 = time.perf_counter()
        X = run()
        walls.append(time.perf_counter() - t0)
        result = parseval(X)
        del X
    return statistics.median(walls), walls, result


def load():
    return [round(v, 2) for v in os.getloadavg()]


with dask.config.set(scheduler="threads", num_workers=args.threads):
    for name in args.only.split(","):
        p = PARAMS[name]
        shape = (p["n"],) if name == "fft" else (p["n"], p["n"])
        x = rng.random(shape)
        runs = {"fft": [("numpy", lambda: fft_numpy(x)), ("dask-threads", lambda: fft_dask(x, p))],
                "fft2": [("numpy", lambda: fft2_numpy(x)), ("dask-threads", lambda: fft2_dask(x, p))]}[name]
        for system, run in runs:
            before = load()
            med, walls, result = timed(run)
            print(json.dumps({"name": name, "system": system, "params": p, "wall_s": round(med, 4),
                              "wall_s_all": [round(w, 4) for w in walls], "result": result,
                              "load_before": before, "load_after": load()}), flush=True)
        del x
        if args.phobos:
            before = load()
            out = subprocess.run([args.phobos, "run", name, "-reps", str(args.reps), "-n", str(p["n"]),
                                  "-chunk", str(p["chunk"])], capture_output=True, text=True, check=True).stdout
            rec = json.loads(next(line for line in out.splitlines() if line.startswith("{")))
            print(json.dumps({"name": name, "system": "phobos", "params": p, "wall_s": rec["wall_s"],
                              "wall_s_all": rec["wall_s_all"], "result": rec["result"],
                              "load_before": before, "load_after": load()}), flush=True)
