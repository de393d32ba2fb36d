"""W9's reference result in NumPy, computed in blocks of rows so that it
runs within a few GB: (x - x.mean(axis=0)).std(axis=0).sum() of the .npy
file `phobos gen-data W9` wrote, as NumPy's two passes (the column means,
then the squared deviations from them), one block of rows at a time.

    python3 w9_numpy.py FILE.npy [--rows 2000]

Prints one JSON line: the result and the wall seconds."""

import argparse
import json
import time

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("path")
ap.add_argument("--rows", type=int, default=2000)
args = ap.parse_args()

t0 = time.perf_counter()
x = np.load(args.path, mmap_mode="r")
n, m = x.shape
s = np.zeros(m)
for r in range(0, n, args.rows):
    s += x[r:r + args.rows].sum(axis=0)
mean = s / n
q = np.zeros(m)
for r in range(0, n, args.rows):
    d = x[r:r + args.rows] - mean
    q += (d * d).sum(axis=0)
result = float(np.sqrt(q / n).sum())
print(json.dumps({"name": "W9", "system": "numpy-blocks", "path": args.path, "rows": args.rows,
                  "wall_s": time.perf_counter() - t0, "result": result, "numpy": np.__version__}))
