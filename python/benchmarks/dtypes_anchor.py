"""The anchors of the small dtypes: (x // 2 + 3).sum() over 1e8 uint8 and (x * 2 + 1).sum() over
1e8 float16 (random bytes, made before timing; Phobos: `go test -run '^$' -bench
'Uint8Sum|Float16Sum' -benchtime 5x .`), in NumPy and in Dask (threaded, chunks of 1e7).

    /usr/bin/python3 dtypes_anchor.py [--n 100000000] [--chunk 10000000] [--threads 2] [--reps 5]

Prints one JSON line per system and variant: the wall seconds of each run and their median."""

import argparse
import json
import statistics
import time

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--n", type=int, default=100_000_000)
ap.add_argument("--chunk", type=int, default=10_000_000)
ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--reps", type=int, default=5)
args = ap.parse_args()

raw = np.random.default_rng(11).integers(0, 256, 2 * args.n, dtype=np.uint8)
u8 = raw[: args.n]
f16 = raw.view(np.float16)


def run(name, f):
    times = []
    for _ in range(args.reps):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    print(json.dumps({"system": name, "seconds": times, "median": statistics.median(times)}))


with np.errstate(all="ignore"):
    run("numpy uint8", lambda: (u8 // 2 + 3).sum())
    run("numpy float16", lambda: (f16 * 2 + 1).sum())
    try:
        import dask
        import dask.array as da
    except ImportError:
        pass
    else:
        dask.config.set(scheduler="threads", num_workers=args.threads)
        du, df = da.from_array(u8, chunks=args.chunk), da.from_array(f16, chunks=args.chunk)
        run("dask uint8", lambda: (du // 2 + 3).sum().compute())
        run("dask float16", lambda: (df * 2 + 1).sum().compute())
