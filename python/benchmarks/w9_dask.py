"""W9 in Dask, the anchor for `phobos run W9`: (x - x.mean(axis=0)).std(axis=0).sum()
on the file `phobos gen-data W9` wrote, threaded, in the same chunks.

    python3 w9_dask.py FILE.npy|STORE.zarr [--chunk 2000] [--threads 2] [--reps 3]

Prints one JSON line: the wall seconds of each run, their median, the result."""

import argparse
import json
import statistics
import time

import dask
import dask.array as da
import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("path")
ap.add_argument("--chunk", type=int, default=2000)
ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--reps", type=int, default=3)
args = ap.parse_args()

walls = []
result = None
for _ in range(args.reps):
    t0 = time.perf_counter()
    if args.path.endswith(".npy"):
        x = da.from_array(np.load(args.path, mmap_mode="r"), chunks=(args.chunk, args.chunk))
    else:
        x = da.from_zarr(args.path)
    r = (x - x.mean(axis=0)).std(axis=0).sum()
    with dask.config.set(scheduler="threads", num_workers=args.threads):
        result = float(r.compute())
    walls.append(time.perf_counter() - t0)
print(json.dumps({"name": "W9", "system": "dask-threads", "path": args.path, "threads": args.threads,
                  "wall_s": statistics.median(walls), "wall_s_all": walls, "result": result,
                  "dask": dask.__version__, "numpy": np.__version__}))
